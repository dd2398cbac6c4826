#include <cmath>

#include "frame_test_util.hpp"
#include "slab/core/counter_rng.hpp"
#include "slab/core/time.hpp"
#include "slab/frame/datasets.hpp"
#include "slab/frame/ops.hpp"
#include "slab/frame/print.hpp"
#include "slab/runtime/execution_context.hpp"

using namespace slab::frame;
using frame_test::Engine;
using slab::format_timestamp;

namespace {
int rank() {
  int r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
}  // namespace

TEST(Frame, SchemaIndexOfMessage) {
  Schema s({{"a", ElementType::int64}, {"b", ElementType::float64}, {"c", ElementType::string}});
  EXPECT_EQ(s.index_of("b"), 1u);
  try {
    (void)s.index_of("x");
    FAIL();
  } catch (const slab::InvalidArgument& e) {
    EXPECT_EQ(e.message(), "unknown column 'x' (columns: a, b, c)");
  }
  ASSERT_TRUE(s.dictionary(2));
  EXPECT_TRUE(s.dictionary(2)->empty());
}

TEST(Frame, BatchRoundTrip) {
  std::vector<std::byte> st;
  BatchBuilder b(st, 3, {ElementType::int64, ElementType::boolean, ElementType::string}, {true, false, false});
  b.column<std::int64_t>(0)[0] = 1;
  b.column<std::int64_t>(0)[1] = 2;
  b.column<std::int64_t>(0)[2] = 3;
  b.valid(0)[1] = 0;
  for (int i = 0; i < 3; ++i) b.column<std::uint8_t>(1)[i] = i % 2;
  for (int i = 0; i < 3; ++i) b.column<std::int32_t>(2)[i] = i - 1;
  BatchView v(st);
  EXPECT_EQ(v.nrows(), 3);
  EXPECT_EQ(v.ncols(), 3u);
  EXPECT_EQ(st.size() % 8, 0u);
  EXPECT_TRUE(v.is_valid(0, 0));
  EXPECT_FALSE(v.is_valid(0, 1));
  EXPECT_EQ(v.valid(1), nullptr);
  EXPECT_TRUE(v.is_null(2, 0));
  EXPECT_EQ(v.column<std::int64_t>(0)[2], 3);
  EXPECT_THROW((void)v.column<double>(1), slab::TypeError);
}

// A batch written and read through a non-host context (the reference place: host memory, read as a GPU's would be):
// the same bytes as on the host, the headers read through copies, and host reads of the values refused.
TEST(Frame, BatchInDeviceMemoryIsTheSameBytesAndRefusesHostReads) {
  const std::vector<ElementType> types{ElementType::int64, ElementType::boolean, ElementType::string};
  const std::vector<bool> masks{true, false, true};
  const slab::ExecutionContext reference(slab::ExecutionPlace::reference, -1, nullptr);
  for (std::int64_t n : {0, 1, 5}) {
    std::vector<std::byte> host, device(BatchBuilder::size_for(n, types, masks), std::byte{0xAB});
    BatchBuilder h(host, n, types, masks);
    BatchBuilder d(device, n, types, masks, reference);
    for (std::int64_t i = 0; i < n; ++i) {
      h.column<std::int64_t>(0)[i] = d.column<std::int64_t>(0)[i] = i * 7 - 3;
      h.column<std::uint8_t>(1)[i] = d.column<std::uint8_t>(1)[i] = static_cast<std::uint8_t>(i % 2);
      h.column<std::int32_t>(2)[i] = d.column<std::int32_t>(2)[i] = static_cast<std::int32_t>(i) - 1;
    }
    EXPECT_EQ(host, device) << "n = " << n;  // headers, padding and all-valid masks alike
    const BatchView v(device, reference);
    EXPECT_FALSE(v.host_readable());
    EXPECT_EQ(v.nrows(), n);
    ASSERT_EQ(v.ncols(), 3u);
    EXPECT_EQ(v.type(2), ElementType::string);
    EXPECT_NE(v.valid(0), nullptr);
    EXPECT_EQ(v.valid(1), nullptr);
    EXPECT_EQ(v.data(2) - device.data(), BatchView(host).data(2) - host.data());
    EXPECT_THROW((void)v.column<std::int64_t>(0), slab::Error);
    if (n > 0) EXPECT_THROW((void)v.is_null(0, 0), slab::Error);
    // concat_batches reads and writes it through the same context; the result is the host's concatenation.
    std::vector<std::byte> both_host, both_device;
    const BatchView hv(host), two_host[2] = {hv, hv}, two_device[2] = {v, hv};
    concat_batches(two_host, types, both_host);
    EXPECT_THROW(concat_batches(two_device, types, both_device), slab::Error);  // a host concatenation: refused
    both_device.resize(concat_batches_bytes(two_device, types));
    concat_batches(two_device, types, both_device, reference);
    EXPECT_EQ(both_host, both_device) << "n = " << n;
    const BatchView copied = BatchView::copied_to_host(device, reference);  // host memory already: a plain view
    EXPECT_TRUE(copied.host_readable());
  }
}

// Each rank contributes different rows and different strings; the dictionary is the sorted union.
TEST(Frame, FromLocalTableUnifiesDictionariesAndGathers) {
  Engine e;
  int r = e.comm().rank(), p = e.comm().size();
  LocalTable t;
  std::vector<std::int64_t> a;
  std::vector<std::string> s;
  std::vector<double> x;
  for (int i = 0; i <= r; ++i) {  // rank r has r+1 rows
    a.push_back(r * 10 + i);
    s.push_back("s" + std::to_string(p - r));
    x.push_back(i == 0 ? std::nan("") : 1.5 * i);
  }
  t.add(LocalColumn::int64("a", a)).add(LocalColumn::string("s", s)).add(LocalColumn::float64("x", x));
  Frame f = Frame::from_local_table(e, t, 1);
  auto dict = *f.schema().dictionary(1);
  std::vector<std::string> expect_dict;
  for (int q = 1; q <= p; ++q) expect_dict.push_back("s" + std::to_string(q));
  std::sort(expect_dict.begin(), expect_dict.end());
  EXPECT_EQ(dict, expect_dict);
  EXPECT_EQ(f.len(), p * (p + 1) / 2);
  LocalTable g = f.gather_all();
  std::int64_t row = 0;
  for (int q = 0; q < p; ++q)
    for (int i = 0; i <= q; ++i, ++row) {
      EXPECT_EQ(g["a"].ints[row], q * 10 + i);
      EXPECT_EQ(g["s"].strings[row], "s" + std::to_string(p - q));
      EXPECT_EQ(g["x"].is_null(row), i == 0);
      EXPECT_EQ(g.index[row], row);
    }
  LocalTable g0 = f.gather(0);
  EXPECT_EQ(g0.nrows(), r == 0 ? row : 0);
}

TEST(Frame, RanksWithNoRows) {
  Engine e;
  LocalTable t;
  std::vector<std::int64_t> v;
  if (e.comm().rank() == 0) v = {1, 2, 3};
  t.add(LocalColumn::int64("v", v));
  Frame f = Frame::from_local_table(e, t);
  EXPECT_EQ(f.len(), 3);
  EXPECT_EQ(f.shape().second, 1);
  LocalTable g = f.gather_all();
  EXPECT_EQ(g["v"].ints, (std::vector<std::int64_t>{1, 2, 3}));
  // Empty frame.
  LocalTable z;
  z.add(LocalColumn::float64("x", {}));
  Frame fz = Frame::from_local_table(e, z);
  EXPECT_EQ(fz.len(), 0);
  EXPECT_EQ(fz.gather_all().nrows(), 0);
}

// A table every rank builds the same is held once (each rank its balanced share), not stacked once per rank;
// tables that differ between ranks are refused on every rank.
TEST(Frame, FromReplicatedTable) {
  Engine e;
  const int p = e.comm().size(), r = e.comm().rank();
  for (std::int64_t n : {0, 1, 2, 5, 51}) {
    LocalTable t;
    std::vector<std::int64_t> id;
    std::vector<double> w;
    std::vector<std::string> name;
    for (std::int64_t i = 0; i < n; ++i) id.push_back(950 + 2 * i), w.push_back(i / 100.0), name.push_back("n" + std::to_string(i % 3));
    t.add(LocalColumn::int64("id", id)).add(LocalColumn::float64("w", w)).add(LocalColumn::string("name", name));
    Frame f = Frame::from_replicated_table(e, t);
    EXPECT_EQ(f.len(), n);
    EXPECT_EQ(f.local_len(), n * (r + 1) / p - n * r / p);
    LocalTable g = f.gather_all();
    EXPECT_EQ(g["id"].ints, id);
    EXPECT_EQ(g["w"].floats, w);
    EXPECT_EQ(g["name"].strings, name);
  }
  LocalTable differs;
  differs.add(LocalColumn::int64("id", {1, 2, r == p - 1 && p > 1 ? 4 : 3}));
  if (p > 1) {
    try {
      (void)Frame::from_replicated_table(e, differs);
      ADD_FAILURE() << "tables that differ between ranks were accepted";
    } catch (const slab::InvalidArgument& err) {
      EXPECT_NE(err.message().find("tables differ"), std::string::npos) << err.message();
    }
  }
  LocalTable ragged;
  ragged.columns = {LocalColumn::int64("a", {1, 2}), LocalColumn::int64("b", {1})};
  EXPECT_THROW((void)Frame::from_replicated_table(e, ragged), slab::InvalidArgument);
}

TEST(Frame, TimeseriesAndPrinting) {
  Engine e;
  Frame f = timeseries(e, "2000-01-01", "2000-01-02", "1h", 0, "6h");
  EXPECT_EQ(f.len(), 24);
  auto h = head(f, 3);
  EXPECT_EQ(h.nrows(), 3);
  EXPECT_EQ(format_timestamp(h["timestamp"].ints[2]), "2000-01-01 02:00:00");
  auto t = tail(f, 2);
  EXPECT_EQ(t.index, (std::vector<std::int64_t>{22, 23}));
  std::string s = to_string(h);
  EXPECT_NE(s.find("timestamp"), std::string::npos);
  EXPECT_NE(s.find("2000-01-01 01:00:00"), std::string::npos);
  // Small exact output.
  LocalTable small;
  small.add(LocalColumn::int64("id", {1, 22})).add(LocalColumn::float64("x", {0.5, std::nan("")}));
  EXPECT_EQ(to_string(small), "   id         x\n0   1  0.500000\n1  22       NaN\n");
  std::string big = to_string(f, 4);
  EXPECT_NE(big.find("[24 rows x 5 columns]"), std::string::npos);
}
