// HDF5 frames: round trip of every column type with nulls (complete-or-absent replacement), and reading a file
// written in the layout of WORKLOADS.md by plain serial HDF5 calls (vlen `columns`, unsorted categories, bool
// as uint8, timestamps with unit = "ns", a `.valid` dataset).
#include <gtest/gtest.h>
#include <hdf5.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "../io/io_test_util.hpp"
#include "slab/core/version.hpp"
#include "slab/frame/ops.hpp"
#include "slab/io/frame_io.hpp"
#include "slab/runtime/execution_context.hpp"

namespace sf = slab::frame;

namespace {

sf::LocalTable make_local(int rank) {
  const std::int64_t n = rank == 1 ? 0 : 5 + 3 * rank;
  std::int64_t base = 0;
  for (int q = 0; q < rank; ++q) base += q == 1 ? 0 : 5 + 3 * q;
  std::vector<std::int64_t> i64, ts;
  std::vector<double> f;
  std::vector<std::uint8_t> b, valid, bvalid;
  std::vector<std::string> s;
  std::vector<std::uint8_t> svalid;
  const char* words[] = {"zeta", "alpha", "", "mu"};
  for (std::int64_t k = 0; k < n; ++k) {
    const std::int64_t g = base + k;
    i64.push_back(g * 1000 - 7);
    valid.push_back(g % 4 != 1);
    f.push_back(g % 5 == 2 ? std::nan("") : g * 0.5);
    b.push_back(g % 3 == 0);
    bvalid.push_back(g % 6 != 5);
    ts.push_back(946684800000000000LL + g * 1000);
    s.push_back(g % 7 == 3 ? "" : words[g % 4]);
    svalid.push_back(g % 7 != 3);
  }
  sf::LocalTable t;
  t.add(sf::LocalColumn::int64("i", i64, valid));
  t.add(sf::LocalColumn::float64("f", f));
  t.add(sf::LocalColumn::boolean("b", b, bvalid));
  t.add(sf::LocalColumn::timestamp("t", ts));
  t.add(sf::LocalColumn::string("s", s, svalid));
  return t;
}

void expect_same(const sf::LocalTable& a, const sf::LocalTable& b) {
  ASSERT_EQ(a.names(), b.names());
  ASSERT_EQ(a.nrows(), b.nrows());
  for (std::size_t c = 0; c < a.ncols(); ++c) {
    const auto &x = a.columns[c], &y = b.columns[c];
    EXPECT_EQ(x.type, y.type) << x.name;
    for (std::int64_t r = 0; r < a.nrows(); ++r) {
      ASSERT_EQ(x.is_null(r), y.is_null(r)) << x.name << " row " << r;
      if (x.is_null(r)) continue;
      switch (x.type) {
        case slab::ElementType::string:
          EXPECT_EQ(x.strings[r], y.strings[r]) << x.name << r;
          break;
        case slab::ElementType::float64:
          EXPECT_EQ(x.floats[r], y.floats[r]) << x.name << r;
          break;
        case slab::ElementType::boolean:
          EXPECT_EQ(x.bools[r], y.bools[r]) << x.name << r;
          break;
        default:
          EXPECT_EQ(x.ints[r], y.ints[r]) << x.name << r;
          break;
      }
    }
  }
}

bool link_exists(const std::string& file, const std::string& path) {
  hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return false;
  const bool e = H5Lexists(f, path.c_str(), H5P_DEFAULT) > 0;
  H5Fclose(f);
  return e;
}

}  // namespace

TEST(FrameHdf5, RoundTripEveryTypeWithNulls) {
  iotest::Engine e;
  iotest::ScratchDir dir(e.comm());
  const std::string file = dir.file("frame.h5");
  sf::Frame f = sf::Frame::from_local_table(e, make_local(e.comm().rank()), 4);
  const sf::LocalTable want = f.gather_all();
  slab::io::write_hdf5(f, file, "/data/frame");
  sf::Frame g = slab::io::read_hdf5(e, file, "/data/frame", 3);
  expect_same(g.gather_all(), want);
  // Replace it with another frame: the old group goes, no temporary stays.
  sf::LocalTable small;
  small.add(sf::LocalColumn::float64("only", {1.0 * e.comm().rank()}));
  slab::io::write_hdf5(sf::Frame::from_local_table(e, small), file, "/data/frame");
  sf::LocalTable back = slab::io::read_hdf5(e, file, "/data/frame").gather_all();
  ASSERT_EQ(back.names(), std::vector<std::string>{"only"});
  EXPECT_EQ(back.nrows(), e.comm().size());
  e.comm().barrier();
  EXPECT_FALSE(link_exists(file, "/data/.frame.slab-tmp"));
  // Errors agree on every rank.
  EXPECT_THROW((void)slab::io::read_hdf5(e, file, "/nope"), slab::IoError);
  EXPECT_THROW((void)slab::io::read_hdf5(e, dir.file("missing.h5"), "/frame"), slab::IoError);
}

TEST(FrameHdf5, ReadsAFileWrittenWithPlainHdf5Calls) {
  iotest::Engine e;
  iotest::ScratchDir dir(e.comm());
  const std::string file = dir.file("plain.h5");
  const hsize_t n = 6;
  if (e.comm().rank() == 0) {
    hid_t f = H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t g = H5Gcreate2(f, "/frame", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t sp = H5Screate_simple(1, &n, nullptr);
    std::int64_t id[6] = {10, 11, 12, 13, 14, 15};
    hid_t d = H5Dcreate2(g, "id", H5T_STD_I64LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, id);
    H5Dclose(d);
    std::uint8_t idv[6] = {1, 1, 0, 1, 1, 1};
    d = H5Dcreate2(g, "id.valid", H5T_STD_U8LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, idv);
    H5Dclose(d);
    std::uint8_t flag[6] = {1, 0, 0, 1, 1, 0};
    d = H5Dcreate2(g, "flag", H5T_STD_U8LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, flag);
    H5Dclose(d);
    std::int64_t t[6] = {0, 1, 2, 3, 4, 5};
    d = H5Dcreate2(g, "when", H5T_STD_I64LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, t);
    hid_t vstr = H5Tcopy(H5T_C_S1);
    H5Tset_size(vstr, H5T_VARIABLE);
    H5Tset_cset(vstr, H5T_CSET_UTF8);
    hid_t scalar = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(d, "unit", vstr, scalar, H5P_DEFAULT, H5P_DEFAULT);
    const char* ns = "ns";
    H5Awrite(a, vstr, &ns);
    H5Aclose(a);
    H5Dclose(d);
    double x[6] = {0.5, NAN, 2.5, 3.5, 4.5, 5.5};
    d = H5Dcreate2(g, "x", H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, x);
    H5Dclose(d);
    hid_t sub = H5Gcreate2(g, "name", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    std::int32_t codes[6] = {0, 1, 2, -1, 1, 0};
    d = H5Dcreate2(sub, "codes", H5T_STD_I32LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, codes);
    H5Dclose(d);
    hid_t fstr = H5Tcopy(H5T_C_S1);
    H5Tset_size(fstr, 5);
    H5Tset_cset(fstr, H5T_CSET_UTF8);
    const hsize_t nc = 3;
    hid_t csp = H5Screate_simple(1, &nc, nullptr);
    char cats[15] = {};
    std::memcpy(cats, "Zelda", 5), std::memcpy(cats + 5, "Bob", 3), std::memcpy(cats + 10, "Alice", 5);
    d = H5Dcreate2(sub, "categories", fstr, csp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, fstr, H5S_ALL, H5S_ALL, H5P_DEFAULT, cats);
    H5Dclose(d);
    const hsize_t ncol = 5;
    hid_t colsp = H5Screate_simple(1, &ncol, nullptr);
    const char* names[5] = {"id", "name", "x", "flag", "when"};
    a = H5Acreate2(g, "columns", vstr, colsp, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, vstr, names);
    H5Aclose(a);
    H5Sclose(colsp), H5Sclose(csp), H5Tclose(fstr), H5Gclose(sub), H5Sclose(scalar), H5Tclose(vstr), H5Sclose(sp);
    H5Gclose(g), H5Fclose(f);
  }
  e.comm().barrier();
  sf::Frame f = slab::io::read_hdf5(e, file, "/frame");
  const sf::LocalTable t = f.gather_all();
  ASSERT_EQ(t.names(), (std::vector<std::string>{"id", "name", "x", "flag", "when"}));
  EXPECT_EQ(t["id"].type, slab::ElementType::int64);
  EXPECT_EQ(t["name"].type, slab::ElementType::string);
  EXPECT_EQ(t["flag"].type, slab::ElementType::boolean);
  EXPECT_EQ(t["when"].type, slab::ElementType::timestamp);
  ASSERT_EQ(t.nrows(), 6);
  EXPECT_TRUE(t["id"].is_null(2));
  EXPECT_EQ(t["id"].ints[5], 15);
  EXPECT_EQ(t["name"].strings, (std::vector<std::string>{"Zelda", "Bob", "Alice", "", "Bob", "Zelda"}));
  EXPECT_TRUE(t["name"].is_null(3));
  EXPECT_EQ(*f.schema().dictionary(1), (std::vector<std::string>{"Alice", "Bob", "Zelda"}));
  EXPECT_TRUE(std::isnan(t["x"].floats[1]));
  EXPECT_EQ(t["flag"].bools, (std::vector<std::uint8_t>{1, 0, 0, 1, 1, 0}));
  EXPECT_EQ(t["when"].ints[4], 4);
  // Without the `columns` attribute: alphabetical order of the datasets and string groups.
  if (e.comm().rank() == 0) {
    hid_t fh = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    H5Adelete_by_name(fh, "/frame", "columns", H5P_DEFAULT);
    H5Fclose(fh);
  }
  e.comm().barrier();
  EXPECT_EQ(slab::io::read_hdf5(e, file, "/frame").columns(),
            (std::vector<std::string>{"flag", "id", "name", "when", "x"}));
}

// A frame with no rows (on every rank, or on some) writes empty datasets, as h5py does for a zero-length
// array, and reads back as zero rows with its columns and types. Before, H5Dwrite of a dataset with no
// storage failed ("addr overflow, addr = 18446744073709551615, size=0") with a raw HDF5 error stack.
TEST(FrameHdf5, ZeroRowFrames) {
  iotest::Engine e;
  iotest::ScratchDir dir(e.comm());
  const std::string file = dir.file("empty.h5");
  const int r = e.comm().rank(), p = e.comm().size();
  // Every column type, nulls in the non-float columns (so `.valid` datasets are written where rows exist).
  auto table = [](std::int64_t n) {
    std::vector<std::int64_t> i64, ts;
    std::vector<double> f;
    std::vector<std::uint8_t> b, valid;
    std::vector<std::string> s;
    for (std::int64_t k = 0; k < n; ++k)
      i64.push_back(k), ts.push_back(k * 1000), f.push_back(0.5 * k), b.push_back(k % 2), valid.push_back(k != 1),
          s.push_back(k % 2 ? "odd" : "even");
    sf::LocalTable t;
    t.add(sf::LocalColumn::int64("i", i64, valid));
    t.add(sf::LocalColumn::float64("f", f));
    t.add(sf::LocalColumn::boolean("b", b, valid));
    t.add(sf::LocalColumn::timestamp("t", ts));
    t.add(sf::LocalColumn::string("s", s, valid));
    return t;
  };
  const std::vector<slab::ElementType> types = {slab::ElementType::int64, slab::ElementType::float64,
                                                slab::ElementType::boolean, slab::ElementType::timestamp,
                                                slab::ElementType::string};
  // No rows anywhere.
  slab::io::write_hdf5(sf::Frame::from_local_table(e, table(0)), file, "/none");
  const sf::Frame none = slab::io::read_hdf5(e, file, "/none");
  EXPECT_EQ(none.len(), 0);
  EXPECT_EQ(none.columns(), (std::vector<std::string>{"i", "f", "b", "t", "s"}));
  for (std::size_t c = 0; c < types.size(); ++c) EXPECT_EQ(none.schema().type(c), types[c]) << c;
  EXPECT_EQ(none.gather_all().nrows(), 0);
  // Rows on the last rank only (at 1 rank: rows everywhere): the other ranks write empty hyperslabs.
  const sf::Frame some = sf::Frame::from_local_table(e, table(r == p - 1 ? 4 : 0));
  const sf::LocalTable want = some.gather_all();
  slab::io::write_hdf5(some, file, "/some");
  expect_same(slab::io::read_hdf5(e, file, "/some", 2).gather_all(), want);
  // A filter that keeps nothing (partitions of zero rows) writes zero rows too.
  const sf::Frame filtered = sf::filter(some, sf::col("i") > 100);
  slab::io::write_hdf5(filtered, file, "/filtered");
  EXPECT_EQ(slab::io::read_hdf5(e, file, "/filtered").len(), 0);
  // The file stays readable with the plain HDF5 API: empty 1-D datasets, as h5py writes them.
  e.comm().barrier();
  if (r == 0) {
    hid_t fh = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d = H5Dopen2(fh, "/none/f", H5P_DEFAULT);
    hid_t sp = H5Dget_space(d);
    hsize_t dims = 99;
    EXPECT_EQ(H5Sget_simple_extent_ndims(sp), 1);
    H5Sget_simple_extent_dims(sp, &dims, nullptr);
    EXPECT_EQ(dims, 0u);
    H5Sclose(sp), H5Dclose(d), H5Fclose(fh);
  }
  e.comm().barrier();
}

// A write that fails says what failed in one line (HDF5's innermost reason), the same on every rank, not
// HDF5's error stack ("H5Fcreate(): unable to create file; H5F_open(): ...; H5FD__mpio_open(): ...").
TEST(FrameHdf5, WriteErrorsAreOneLine) {
  iotest::Engine e;
  sf::LocalTable t;
  t.add(sf::LocalColumn::float64("x", {1.0, 2.0}));
  const sf::Frame f = sf::Frame::from_local_table(e, t);
  const std::string path = "/proc/self/nope/out.h5";  // never creatable, root or not
  std::string m;
  try {
    slab::io::write_hdf5(f, path, "/frame");
  } catch (const slab::IoError& ex) {
    m = ex.message();
  }
  EXPECT_EQ(m.rfind(path + ": cannot create: ", 0), 0u) << m;
  EXPECT_EQ(m.find("H5"), std::string::npos) << m;
  EXPECT_EQ(m.find("; "), std::string::npos) << m;
  EXPECT_EQ(m.find('\n'), std::string::npos) << m;
}

// Groups written by pandas' DataFrame.to_hdf (PyTables: blocks or a compound table, names pickled) are refused
// with a message that names their writer and says what slab reads, the same on every rank. The file is
// data/pandas_to_hdf.h5, made by data/make_pandas_to_hdf.py (pandas 3.1.1, PyTables 3.11.1).
TEST(FrameHdf5, RefusesPandasToHdf) {
  iotest::Engine e;
  const std::string file = std::string(SLAB_IO_FRAME_DATA) + "/pandas_to_hdf.h5";
  const std::string reads =
      ", which slab does not read; slab reads a group with one 1-D dataset per column (the layout "
      "slab::io::write_hdf5 and h5py write; see the README, \"Frames in HDF5 and pandas\")";
  for (const auto& [group, what] :
       {std::pair<std::string, std::string>{"/fixed", "format='fixed', pandas_type 'frame'"},
        {"/table", "format='table', pandas_type 'frame_table'"}}) {
    std::string m;
    try {
      (void)slab::io::read_hdf5(e, file, group);
    } catch (const slab::IoError& ex) {
      m = ex.message();
    }
    EXPECT_EQ(m,
              file + ":" + group + " was written by pandas (DataFrame.to_hdf through PyTables, " + what + ")" + reads);
  }
}

namespace {

// Rows g of the file below, written with plain HDF5 calls: what a read must give back.
std::int64_t int_of(std::int64_t g) {
  return g == 0   ? std::numeric_limits<std::int64_t>::min()
         : g == 1 ? std::numeric_limits<std::int64_t>::max()
                  : g * 3 - 1000;
}
bool int_valid(std::int64_t g) { return g % 5 != 2; }
double float_of(std::int64_t g) { return g % 11 == 5 ? -0.0 : static_cast<double>(g) * 0.25 - 7.0; }
bool float_valid(std::int64_t g) { return g % 7 != 3; }
std::uint8_t flag_of(std::int64_t g) { return static_cast<std::uint8_t>(g % 3); }  // 2 reads as true
bool flag_valid(std::int64_t g) { return g % 6 != 5; }
std::int32_t code_of(std::int64_t g) { return g % 4 == 3 ? -1 : static_cast<std::int32_t>(g % 3); }
const char* const kCategories[3] = {"Zelda", "Bob", "Alice"};  // unsorted, as pandas may write them

// A frame group of n rows in every layout the reader takes: int64 and float64 with `.valid` masks (a float's
// becomes NaN), bool as uint8 (with a mask) and as h5py's enum, timestamps, and string codes with unsorted
// categories; `bad_code` (if >= 0) is stored as the last row's code.
void write_plain_frame(const std::string& file, const std::string& group, std::int64_t n, std::int32_t bad_code) {
  hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  if (f < 0) f = H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hid_t g = H5Gcreate2(f, group.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  const auto len = static_cast<hsize_t>(n);
  hid_t sp = H5Screate_simple(1, &len, nullptr);
  auto put = [&](hid_t loc, const char* name, hid_t file_type, hid_t mem_type, const void* data) {
    hid_t d = H5Dcreate2(loc, name, file_type, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
    return d;
  };
  std::vector<std::int64_t> ints(len), times(len);
  std::vector<double> floats(len);
  std::vector<std::uint8_t> iv(len), fv(len), flags(len), flagv(len);
  std::vector<std::int8_t> enums(len);
  std::vector<std::int32_t> codes(len);
  for (std::int64_t k = 0; k < n; ++k) {
    const auto u = static_cast<std::size_t>(k);
    ints[u] = int_of(k), iv[u] = int_valid(k), floats[u] = float_of(k), fv[u] = float_valid(k);
    flags[u] = flag_of(k), flagv[u] = flag_valid(k), enums[u] = static_cast<std::int8_t>(k % 2);
    times[u] = 1000000000000000000LL + k * 1000, codes[u] = code_of(k);
  }
  if (bad_code >= 0 && n > 0) codes.back() = bad_code;
  H5Dclose(put(g, "i", H5T_STD_I64LE, H5T_NATIVE_INT64, ints.data()));
  H5Dclose(put(g, "i.valid", H5T_STD_U8LE, H5T_NATIVE_UINT8, iv.data()));
  H5Dclose(put(g, "f", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, floats.data()));
  H5Dclose(put(g, "f.valid", H5T_STD_U8LE, H5T_NATIVE_UINT8, fv.data()));
  H5Dclose(put(g, "flag", H5T_STD_U8LE, H5T_NATIVE_UINT8, flags.data()));
  H5Dclose(put(g, "flag.valid", H5T_STD_U8LE, H5T_NATIVE_UINT8, flagv.data()));
  hid_t en = H5Tenum_create(H5T_NATIVE_INT8);
  std::int8_t no = 0, yes = 1;
  H5Tenum_insert(en, "FALSE", &no), H5Tenum_insert(en, "TRUE", &yes);
  H5Dclose(put(g, "enum", en, en, enums.data()));
  H5Tclose(en);
  hid_t t = put(g, "t", H5T_STD_I64LE, H5T_NATIVE_INT64, times.data());
  hid_t vstr = H5Tcopy(H5T_C_S1);
  H5Tset_size(vstr, H5T_VARIABLE);
  hid_t scalar = H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate2(t, "unit", vstr, scalar, H5P_DEFAULT, H5P_DEFAULT);
  const char* ns = "ns";
  H5Awrite(a, vstr, &ns);
  H5Aclose(a), H5Dclose(t);
  hid_t sub = H5Gcreate2(g, "s", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Dclose(put(sub, "codes", H5T_STD_I32LE, H5T_NATIVE_INT32, codes.data()));
  const hsize_t ncat = 3;
  hid_t csp = H5Screate_simple(1, &ncat, nullptr);
  hid_t d = H5Dcreate2(sub, "categories", vstr, csp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Dwrite(d, vstr, H5S_ALL, H5S_ALL, H5P_DEFAULT, kCategories);
  H5Dclose(d), H5Sclose(csp), H5Gclose(sub), H5Sclose(scalar), H5Tclose(vstr), H5Sclose(sp), H5Gclose(g), H5Fclose(f);
}

// The rows of `t` (a frame read from write_plain_frame's group) against the formulas, bitwise for floats.
void expect_plain_rows(const sf::LocalTable& t, std::int64_t n, const std::string& what) {
  ASSERT_EQ(t.names(), (std::vector<std::string>{"enum", "f", "flag", "i", "s", "t"})) << what;
  ASSERT_EQ(t.nrows(), n) << what;
  for (std::int64_t k = 0; k < n; ++k) {
    const auto u = static_cast<std::size_t>(k);
    ASSERT_EQ(t["i"].is_null(u), !int_valid(k)) << what << " i row " << k;
    if (int_valid(k)) ASSERT_EQ(t["i"].ints[u], int_of(k)) << what << " i row " << k;
    const double want = float_valid(k) ? float_of(k) : std::numeric_limits<double>::quiet_NaN();
    ASSERT_EQ(std::bit_cast<std::uint64_t>(t["f"].floats[u]), std::bit_cast<std::uint64_t>(want))
        << what << " f row " << k;
    ASSERT_EQ(t["flag"].is_null(u), !flag_valid(k)) << what << " flag row " << k;
    if (flag_valid(k)) ASSERT_EQ(t["flag"].bools[u], flag_of(k) != 0 ? 1 : 0) << what << " flag row " << k;
    ASSERT_EQ(t["enum"].bools[u], k % 2) << what << " enum row " << k;
    ASSERT_EQ(t["t"].ints[u], 1000000000000000000LL + k * 1000) << what << " t row " << k;
    const std::int32_t code = code_of(k);
    ASSERT_EQ(t["s"].is_null(u), code < 0) << what << " s row " << k;
    if (code >= 0) ASSERT_EQ(t["s"].strings[u], std::string(kCategories[code])) << what << " s row " << k;
  }
}

}  // namespace

// A frame read where the device tier is not host memory lands in the device tier a column at a time through
// staging (on a GPU page-locked, each slab's copy overlapping the next slab's read), with nulls, bools and string
// codes put right on the host block first, and a frame written from there leaves through two staging blocks (the
// next column's copy overlapping this column's write): on the reference place the same loops copy host memory,
// so they are checked here against the file's rows and the host's writes. A host limit of 512 KiB makes the slabs 64
// KiB: 8192 int64 rows, so a partition of 20000 rows takes three slabs of a column (the last shorter), two of codes and
// one of bools.
TEST(FrameHdf5, StagedReadsAndWritesOnTheReferencePlaceAreTheFilesRows) {
  if (!slab::built_with_kernel_reference) GTEST_SKIP() << "this build has no reference kernels (no CCCL headers)";
  iotest::Engine host;
  iotest::ScratchDir dir(host.comm());
  const std::string file = dir.file("plain-large.h5");
  const std::int64_t n = 4 * 20000 + 17;
  if (host.comm().rank() == 0) {
    write_plain_frame(file, "/frame", n, -1);
    write_plain_frame(file, "/bad", n, 7);
  }
  host.comm().barrier();
  slab::EngineOptions o = slab::testing::engine_options(64ull << 20, 512ull << 10);
  o.reference_kernels = true;
  slab::Engine ref(o);
  ASSERT_EQ(ref.execution().place(), slab::ExecutionPlace::reference);
  expect_plain_rows(slab::io::read_hdf5(host, file, "/frame").gather_all(), n, "host");
  for (std::int64_t per : {std::int64_t{20000}, std::int64_t{0}, std::int64_t{4999}}) {
    sf::Frame f = slab::io::read_hdf5(ref, file, "/frame", per);
    const std::uint64_t staged = ref.memory().stats().staging.blocks;
    f.persist();
    EXPECT_GT(ref.memory().stats().staging.blocks, staged) << "the read took no staging block";
    expect_plain_rows(f.gather_all(), n, "reference place, " + std::to_string(per) + " rows a partition");
  }
  // Written back from the reference place (partitions in its device tier): a column at a time through staging,
  // the same rows as the file's.
  {
    sf::Frame f = slab::io::read_hdf5(ref, file, "/frame", 20000);
    f.persist();
    const std::uint64_t staged = ref.memory().stats().staging.blocks;
    slab::io::write_hdf5(f, file, "/copy");
    EXPECT_GT(ref.memory().stats().staging.blocks, staged) << "the write took no staging block";
    expect_plain_rows(slab::io::read_hdf5(host, file, "/copy").gather_all(), n, "written from the reference place");
  }
  // Every type with nulls, a rank with no rows (rank 1), several partitions a rank: the reference place writes
  // what the host writes, `.valid` datasets included.
  {
    const sf::Frame f = sf::Frame::from_local_table(host, make_local(host.comm().rank()), 4);
    slab::io::write_hdf5(f, file, "/small-host");
    const sf::Frame g = slab::io::read_hdf5(ref, file, "/small-host", 3);
    slab::io::write_hdf5(g, file, "/small-ref");
    expect_same(slab::io::read_hdf5(host, file, "/small-ref").gather_all(), f.gather_all());
    host.comm().barrier();
    for (const char* d : {"i.valid", "b.valid", "t.valid", "f.valid"})
      EXPECT_EQ(link_exists(file, std::string("/small-ref/") + d), link_exists(file, std::string("/small-host/") + d))
          << d;
    EXPECT_TRUE(link_exists(file, "/small-ref/i.valid"));
  }
  // A code beyond the categories (in the last row, so on the last rank) is the same error on every rank.
  for (slab::Engine* e : {static_cast<slab::Engine*>(&host), &ref}) {
    std::string m;
    try {
      (void)slab::io::read_hdf5(*e, file, "/bad", 20000).gather_all();
    } catch (const slab::IoError& ex) {
      m = ex.message();
    }
    EXPECT_NE(m.find(file + ":/bad/s/codes holds code 7 beyond the 3 categories"), std::string::npos) << m;
  }
}
