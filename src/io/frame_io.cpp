// Frames in HDF5 (layout of docs/WORKLOADS.md). See slab/io/frame_io.hpp.
#include "slab/io/frame_io.hpp"

#include <hdf5.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <tuple>
#include <vector>

#include "io/hdf5_error.hpp"
#include "io/staged_read.hpp"
#include "slab/comm/comm.hpp"
#include "slab/core/error.hpp"
#include "slab/memory/memory_manager.hpp"
#include "slab/runtime/copy_async.hpp"
#include "slab/runtime/execution_context.hpp"
#include "slab/task/task_context.hpp"

namespace slab::io {

using namespace slab::frame;

using detail::H5Handle;

namespace {

// Frames reach or leave device memory in staged slabs of about this many bytes of a column (as read_block_to's
// default), at most an eighth of the host limit (staging_slab_bytes).
constexpr std::uint64_t kStagingSlabBytes = std::uint64_t{8} << 20;

std::string absolute(std::string p) {
  if (p.empty() || p[0] != '/') p = "/" + p;
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return p;
}
std::string parent_of(const std::string& p) {
  const auto k = p.rfind('/');
  return k == 0 ? "/" : p.substr(0, k);
}
std::string base_of(const std::string& p) { return p.substr(p.rfind('/') + 1); }

bool path_exists(hid_t loc, const std::string& path) {
  std::string prefix;
  std::size_t at = 1;
  while (at <= path.size()) {
    const auto next = path.find('/', at);
    prefix = path.substr(0, next == std::string::npos ? path.size() : next);
    detail::hdf5_quiet();
    const htri_t e = H5Lexists(loc, prefix.c_str(), H5P_DEFAULT);
    if (e <= 0) {
      H5Eclear2(H5E_DEFAULT);
      return false;
    }
    if (next == std::string::npos) break;
    at = next + 1;
  }
  return true;
}

hid_t utf8_string_type(std::size_t len) {
  const hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, std::max<std::size_t>(len, 1));
  H5Tset_cset(t, H5T_CSET_UTF8);
  H5Tset_strpad(t, H5T_STR_NULLPAD);
  return t;
}

void write_string_attr(hid_t obj, const char* name, const std::vector<std::string>& values, bool scalar,
                       const std::string& ctx) {
  std::size_t len = 1;
  for (const auto& v : values) len = std::max(len, v.size());
  H5Handle type(utf8_string_type(len));
  const hsize_t n = values.size();
  H5Handle space(scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, nullptr));
  H5Handle attr(SLAB_HDF5_TRY(ctx, H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT)));
  std::vector<char> buf(std::max<std::size_t>(values.size(), 1) * len, '\0');
  for (std::size_t i = 0; i < values.size(); ++i) std::memcpy(buf.data() + i * len, values[i].data(), values[i].size());
  SLAB_HDF5_TRY(ctx, H5Awrite(attr, type, buf.data()));
}

// Strings of a dataset or attribute of string type (fixed or variable length).
std::vector<std::string> read_strings(hid_t obj, bool is_attr, const std::string& ctx) {
  H5Handle ftype(SLAB_HDF5_TRY(ctx, is_attr ? H5Aget_type(obj) : H5Dget_type(obj)));
  if (H5Tget_class(ftype) != H5T_STRING)
    SLAB_FAIL(IoError, ctx + ": not a string " + (is_attr ? "attribute" : "dataset"));
  H5Handle space(SLAB_HDF5_TRY(ctx, is_attr ? H5Aget_space(obj) : H5Dget_space(obj)));
  const hssize_t n = H5Sget_simple_extent_npoints(space);
  std::vector<std::string> out;
  if (n <= 0) return out;
  if (H5Tis_variable_str(ftype) > 0) {
    H5Handle mtype(H5Tcopy(H5T_C_S1));
    H5Tset_size(mtype, H5T_VARIABLE);
    H5Tset_cset(mtype, H5Tget_cset(ftype));
    std::vector<char*> ptrs(static_cast<std::size_t>(n), nullptr);
    SLAB_HDF5_TRY(ctx, is_attr ? H5Aread(obj, mtype, ptrs.data())
                               : H5Dread(obj, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, ptrs.data()));
    for (char* p : ptrs) out.emplace_back(p ? p : "");
    H5Dvlen_reclaim(mtype, space, H5P_DEFAULT, ptrs.data());
  } else {
    const std::size_t len = H5Tget_size(ftype);
    H5Handle mtype(H5Tcopy(ftype));
    std::vector<char> buf(static_cast<std::size_t>(n) * len);
    SLAB_HDF5_TRY(ctx, is_attr ? H5Aread(obj, mtype, buf.data())
                               : H5Dread(obj, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data()));
    const bool spacepad = H5Tget_strpad(ftype) == H5T_STR_SPACEPAD;
    for (hssize_t i = 0; i < n; ++i) {
      std::string s(buf.data() + i * len, len);
      const auto z = s.find('\0');
      if (z != std::string::npos) s.resize(z);
      if (spacepad)
        while (!s.empty() && s.back() == ' ') s.pop_back();
      out.push_back(std::move(s));
    }
  }
  return out;
}

// Create a 1-D dataset of `type` and length `total`. Collective (HDF5 metadata).
H5Handle create_column(hid_t group, const std::string& name, hid_t file_type, std::uint64_t total,
                       const std::string& ctx) {
  const hsize_t dims = total;
  H5Handle fspace(SLAB_HDF5_TRY(ctx, H5Screate_simple(1, &dims, nullptr)));
  return H5Handle(SLAB_HDF5_TRY(
      ctx + "/" + name, H5Dcreate2(group, name.c_str(), file_type, fspace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)));
}

// Write rows [offset, offset + n) of a dataset of length `total` collectively (n = 0: this rank writes nothing).
void write_rows(hid_t dset, hid_t mem_type, std::uint64_t total, std::uint64_t offset, std::uint64_t n,
                const void* data, const std::string& ctx) {
  // An empty dataset, as h5py writes for a zero-length array: HDF5 allocates no storage for it, and a write,
  // even of nothing, then fails on the undefined address. `total` is global, so every rank skips it.
  if (total == 0) return;
  const hsize_t dims = total, count = n, start = offset;
  H5Handle fspace(SLAB_HDF5_TRY(ctx, H5Screate_simple(1, &dims, nullptr)));
  H5Handle mspace(SLAB_HDF5_TRY(ctx, H5Screate_simple(1, &count, nullptr)));
  if (n == 0) {
    SLAB_HDF5_TRY(ctx, H5Sselect_none(fspace));
    SLAB_HDF5_TRY(ctx, H5Sselect_none(mspace));
  } else {
    SLAB_HDF5_TRY(ctx, H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &start, nullptr, &count, nullptr));
  }
  H5Handle dxpl(H5Pcreate(H5P_DATASET_XFER));
  SLAB_HDF5_TRY(ctx, H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE));
  SLAB_HDF5_TRY(ctx, H5Dwrite(dset, mem_type, mspace, fspace, dxpl, data));
}

}  // namespace

void write_hdf5(const Frame& frame, const std::string& file, const std::string& group_in) {
  const Comm& comm = frame.engine().comm();
  const Schema& schema = frame.schema();
  const std::string target = absolute(group_in);
  SLAB_EXPECTS(target != "/", InvalidArgument, "write_hdf5: the frame needs a group name other than '/'");
  const std::string parent = parent_of(target);
  const std::string temp = (parent == "/" ? std::string() : parent) + "/." + base_of(target) + ".slab-tmp";
  const std::string where = file + ":" + target;

  Frame(frame).persist();  // runs the graph (collective)
  MemoryManager& memory = frame.engine().memory();
  const std::int64_t offset = frame.global_offset();
  const std::int64_t total = frame.len();
  const std::vector<ElementType> types = types_of(schema);
  // Out of core: the partitions are written one at a time (one pinned), in rounds of collective writes; a rank
  // with fewer partitions writes nothing in the rounds past its last.
  const auto rounds =
      static_cast<std::size_t>(comm.allreduce(static_cast<std::int64_t>(frame.num_partitions()), ReduceOp::max));
  // Partitions in device memory (a GPU, or the reference place) reach the file through two staging blocks of
  // `slab_rows` rows of any column and its mask (an eighth of the host limit, at most 8 MiB): each round writes
  // every column in `pieces[r]` collective calls, the most any rank needs (a rank with fewer writes nothing in
  // the rest). Planned here, outside the writes, so that no rank waits in a collective another has left.
  const bool staged_rank = !types.empty() && memory.execution().device_kernels();
  std::uint64_t row_bytes = 1;  // the widest value and a mask byte
  for (ElementType t : types) row_bytes = std::max<std::uint64_t>(row_bytes, element_size(t) + 1);
  const std::uint64_t slab_rows =
      std::max<std::uint64_t>(detail::staging_slab_bytes(memory, kStagingSlabBytes) / row_bytes, 1);
  const std::vector<std::int64_t> part_rows = frame.local_partition_rows();
  std::vector<std::int64_t> pieces(rounds, 0);
  std::uint64_t largest = 0;
  for (std::size_t r = 0; r < part_rows.size(); ++r) {
    const auto n = static_cast<std::uint64_t>(part_rows[r]);
    largest = std::max(largest, n);
    pieces[r] = n == 0 ? 0 : staged_rank ? static_cast<std::int64_t>((n + slab_rows - 1) / slab_rows) : 1;
  }
  comm.allreduce(std::span<std::int64_t>(pieces), ReduceOp::max);
  Reservation room;
  StagingBlock blocks[2];
  const std::uint64_t block_rows = std::min(slab_rows, largest);
  comm.run_collectively([&] {  // a host limit too small for them fails here, on every rank, before any write
    if (!staged_rank || block_rows == 0) return;
    room = memory.reserve_host("hdf5 write staging", 2 * block_rows * row_bytes);
    for (StagingBlock& b : blocks) b = memory.staging_block(block_rows * row_bytes);
  });
  // Which columns need a `.valid` dataset: any rank has a null in a non-float column. Partitions are viewed where
  // they lie: on a GPU only their masks are copied to the host for this. Collectively: a partition that cannot be
  // read on one rank fails on every rank, before the allreduce the others would wait in.
  std::vector<int> masked(types.size(), 0);
  comm.run_collectively([&] {
    std::vector<std::uint8_t> mask_copy;
    for (const Chunk& chunk : frame.partitions()) {
      auto [pin, local] = frame::detail::view_chunk_in_place(chunk);
      const auto n = static_cast<std::uint64_t>(local.nrows());
      for (std::size_t c = 0; c < types.size(); ++c) {
        if (types[c] == ElementType::float64 || types[c] == ElementType::string || n == 0 || masked[c]) continue;
        const std::uint8_t* v = local.valid(c);
        if (!v) continue;
        if (!local.host_readable()) {
          mask_copy.resize(n);
          slab::copy(mask_copy.data(), v, n, chunk.buffer()->execution());
          v = mask_copy.data();
        }
        for (std::uint64_t i = 0; i < n && !masked[c]; ++i) masked[c] = v[i] == 0;
      }
    }
  });
  comm.allreduce(std::span<int>(masked), ReduceOp::max);
  int present = 0;
  if (comm.rank() == 0) {
    struct stat st {};
    present = ::stat(file.c_str(), &st) == 0 ? 1 : 0;
    if (present) {
      detail::hdf5_quiet();
      if (H5Fis_hdf5(file.c_str()) <= 0) present = -1;
      H5Eclear2(H5E_DEFAULT);
    }
  }
  comm.bcast(std::span<int>(&present, 1), 0);
  if (present < 0) SLAB_FAIL(IoError, file + ": exists and is not an HDF5 file; not overwriting it");

  H5Handle fid;
  comm.run_collectively([&] {
    H5Handle fapl(H5Pcreate(H5P_FILE_ACCESS));
    SLAB_HDF5_TRY(file, H5Pset_fapl_mpio(fapl, comm.mpi(), MPI_INFO_NULL));
    detail::hdf5_quiet();
    const hid_t id =
        present ? H5Fopen(file.c_str(), H5F_ACC_RDWR, fapl) : H5Fcreate(file.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, fapl);
    if (id < 0)
      SLAB_FAIL(IoError,
                file + ": cannot " + (present ? "open for writing" : "create") + ": " + detail::hdf5_error_reason());
    fid = H5Handle(id);
  });
  // HDF5 metadata calls are collective: every rank makes the same ones; a failure is agreed.
  comm.run_collectively([&] {
    if (path_exists(fid, temp)) SLAB_HDF5_TRY(where, H5Ldelete(fid, temp.c_str(), H5P_DEFAULT));
    H5Handle lcpl(H5Pcreate(H5P_LINK_CREATE));
    SLAB_HDF5_TRY(where, H5Pset_create_intermediate_group(lcpl, 1));
    H5Handle grp(SLAB_HDF5_TRY(where, H5Gcreate2(fid, temp.c_str(), lcpl, H5P_DEFAULT, H5P_DEFAULT)));
    write_string_attr(grp, "columns", schema.names(), false, where);
    // Every dataset first (metadata, collective), then the rows round by round.
    struct Out {
      H5Handle values, valid;
      hid_t mem_type = H5I_INVALID_HID;
      std::string ctx;
    };
    std::vector<Out> outs(types.size());
    for (std::size_t c = 0; c < types.size(); ++c) {
      const std::string& name = schema.name(c);
      const std::string ctx = where + "/" + name;
      Out& o = outs[c];
      o.ctx = ctx;
      switch (types[c]) {
        case ElementType::int64:
        case ElementType::timestamp:
          o.values = create_column(grp, name, H5T_STD_I64LE, total, where);
          o.mem_type = H5T_NATIVE_INT64;
          if (types[c] == ElementType::timestamp) write_string_attr(o.values, "unit", {"ns"}, true, ctx);
          break;
        case ElementType::float64:
          o.values = create_column(grp, name, H5T_IEEE_F64LE, total, where);
          o.mem_type = H5T_NATIVE_DOUBLE;
          break;
        case ElementType::boolean:
          o.values = create_column(grp, name, H5T_STD_U8LE, total, where);
          o.mem_type = H5T_NATIVE_UINT8;
          break;
        case ElementType::string: {
          H5Handle sub(SLAB_HDF5_TRY(ctx, H5Gcreate2(grp, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)));
          o.values = create_column(sub, "codes", H5T_STD_I32LE, total, ctx);
          o.mem_type = H5T_NATIVE_INT32;
          o.ctx = ctx + "/codes";
          const auto& dict = *schema.dictionary(c);
          std::size_t len = 1;
          for (const auto& s : dict) len = std::max(len, s.size());
          std::vector<char> buf(std::max<std::size_t>(dict.size(), 1) * len, '\0');
          for (std::size_t i = 0; i < dict.size(); ++i)
            std::memcpy(buf.data() + i * len, dict[i].data(), dict[i].size());
          H5Handle st(utf8_string_type(len));
          const bool mine = comm.rank() == 0;
          H5Handle cats = create_column(sub, "categories", st, dict.size(), ctx);
          write_rows(cats, st, dict.size(), 0, mine ? dict.size() : 0, buf.data(), ctx + "/categories");
          break;
        }
        default:  // not a column type: a Schema holds none
          break;
      }
      if (masked[c]) o.valid = create_column(grp, name + ".valid", H5T_STD_U8LE, total, where);
    }
    // Round r writes this rank's partition r (if any), piece by piece, a column at a time. Staged, the next
    // column's (or piece's) values and mask are copied to one block while this one's are written from the other.
    // String codes masked out become -1. What one rank does alone (the partition's read, the copies, the codes)
    // is agreed before each collective write, and each write after it, so that a failure on one rank is the
    // error of every rank and no rank waits in a write another has left (as the arrays' writes do).
    std::uint64_t row = static_cast<std::uint64_t>(offset);
    std::vector<std::int32_t> codes;
    std::vector<std::uint8_t> valid;
    const ExecutionContext& place = memory.execution();
    const std::size_t ncols = types.size();
    for (std::size_t r = 0; r < rounds; ++r) {
      Pin pin;
      BatchView local;
      std::uint64_t n = 0;
      comm.run_collectively([&] {
        if (r >= frame.num_partitions()) return;
        std::tie(pin, local) = frame::detail::view_chunk_in_place(frame.partitions()[r]);
        n = static_cast<std::uint64_t>(local.nrows());
      });
      const bool staged = staged_rank && n > 0;
      const std::uint64_t piece_rows = staged ? slab_rows : std::max<std::uint64_t>(n, 1);
      const auto items = static_cast<std::size_t>(pieces[r]) * ncols;  // item i: piece i / ncols, column i % ncols
      auto rows_of = [&](std::size_t i, std::uint64_t& first) {        // this rank's rows of item i
        first = std::min(n, (i / ncols) * piece_rows);
        return std::min(n - first, piece_rows);
      };
      auto copy_item = [&](std::size_t i) {  // into blocks[i % 2]: the values, then the mask
        std::uint64_t first = 0;
        const std::uint64_t h = rows_of(i, first);
        if (h == 0) return;
        const std::size_t c = i % ncols, es = element_size(types[c]);
        std::byte* dst = blocks[i % 2].data();
        slab::copy_async(dst, local.data(c) + first * es, h * es, place);
        if (const std::uint8_t* v = local.valid(c)) slab::copy_async(dst + h * es, v + first, h, place);
      };
      try {
        if (staged && items > 0) comm.run_collectively([&] { copy_item(0); });
        for (std::size_t i = 0; i < items; ++i) {
          const std::size_t c = i % ncols;
          const Out& o = outs[c];
          std::uint64_t first = 0;
          const std::uint64_t h = rows_of(i, first);
          const std::size_t es = element_size(types[c]);
          const void* data = h ? local.data(c) + first * es : nullptr;
          const std::uint8_t* v = h && local.valid(c) ? local.valid(c) + first : nullptr;
          comm.run_collectively([&] {
            if (staged) {
              place.synchronize();  // item i is in its block (and item i - 1's block has been written)
              if (i + 1 < items) copy_item(i + 1);
              std::byte* block = blocks[i % 2].data();
              data = block;
              if (v) v = reinterpret_cast<const std::uint8_t*>(block + h * es);
            }
            if (types[c] == ElementType::string) {
              codes.resize(h);
              const auto* src = reinterpret_cast<const std::int32_t*>(data);
              for (std::uint64_t k = 0; k < h; ++k) codes[k] = (v && !v[k]) ? -1 : src[k];
              data = codes.data();
            }
            if (masked[c] && !v) valid.assign(h, 1);
          });
          comm.run_collectively([&] { write_rows(o.values, o.mem_type, total, row + first, h, data, o.ctx); });
          if (masked[c])
            comm.run_collectively([&] {
              write_rows(o.valid, H5T_NATIVE_UINT8, total, row + first, h, v ? v : valid.data(),
                         where + "/" + schema.name(c) + ".valid");
            });
        }
      } catch (...) {
        try {  // the staging blocks go back to the pool only once no copy writes them
          if (staged) place.synchronize();
        } catch (...) {
        }
        throw;
      }
      row += n;
    }
    outs.clear();
    grp.reset();
    if (path_exists(fid, target)) SLAB_HDF5_TRY(where, H5Ldelete(fid, target.c_str(), H5P_DEFAULT));
    SLAB_HDF5_TRY(where, H5Lmove(fid, temp.c_str(), fid, target.c_str(), H5P_DEFAULT, H5P_DEFAULT));
  });
  comm.run_collectively([&] {
    const hid_t id = fid.release();
    SLAB_HDF5_TRY(file, H5Fclose(id));
  });
}

namespace {

// A column to read: where its values (and mask) are, and how to decode them. The rows are read by the partitions'
// tasks, one partition at a time, so a rank never holds more than one partition's rows outside the task queue.
struct ReadColumn {
  std::string name;
  ElementType type = ElementType::float64;
  std::string values;                   // dataset path (a string column's codes)
  std::string valid;                    // mask dataset path, or ""
  bool bool_enum = false;               // h5py's bool enum (read with its native type)
  std::vector<std::int32_t> remap;      // string: file code -> code in `dictionary`
  std::vector<std::string> dictionary;  // string: sorted unique
};

herr_t collect_name(hid_t, const char* name, const H5L_info_t*, void* out) {
  static_cast<std::vector<std::string>*>(out)->emplace_back(name);
  return 0;
}

std::uint64_t dataset_length(hid_t d, const std::string& ctx) {
  H5Handle space(SLAB_HDF5_TRY(ctx, H5Dget_space(d)));
  const int rank = H5Sget_simple_extent_ndims(space);
  if (rank != 1) SLAB_FAIL(IoError, ctx + " has rank " + std::to_string(rank) + "; expected a 1-D column");
  hsize_t dims = 0;
  H5Sget_simple_extent_dims(space, &dims, nullptr);
  return dims;
}
// Read rows [row0, row0 + n) of a 1-D dataset into out (mem_type elements).
void read_rows(hid_t d, hid_t mem_type, std::uint64_t row0, std::uint64_t n, void* out, const std::string& ctx) {
  if (n == 0) return;
  H5Handle fspace(SLAB_HDF5_TRY(ctx, H5Dget_space(d)));
  const hsize_t start = row0, count = n;
  SLAB_HDF5_TRY(ctx, H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &start, nullptr, &count, nullptr));
  H5Handle mspace(SLAB_HDF5_TRY(ctx, H5Screate_simple(1, &count, nullptr)));
  SLAB_HDF5_TRY(ctx, H5Dread(d, mem_type, mspace, fspace, H5P_DEFAULT, out));
}

// pandas' DataFrame.to_hdf writes through PyTables: blocks of 2-D arrays (format 'fixed') or one compound
// table ('table'), with the column names and types pickled into attributes. Name that instead of misreading
// the group or failing on its first dataset.
void refuse_pytables(hid_t grp, const std::string& where) {
  const std::string reads =
      "; slab reads a group with one 1-D dataset per column (the layout slab::io::write_hdf5 and h5py write; "
      "see the README, \"Frames in HDF5 and pandas\")";
  if (H5Aexists(grp, "pandas_type") > 0) {
    H5Handle a(SLAB_HDF5_TRY(where, H5Aopen(grp, "pandas_type", H5P_DEFAULT)));
    const std::vector<std::string> t = read_strings(a, true, where + " attribute 'pandas_type'");
    const std::string kind = t.empty() ? std::string() : t[0];
    const std::string format = kind.ends_with("_table") ? "table" : "fixed";
    SLAB_FAIL(IoError, where + " was written by pandas (DataFrame.to_hdf through PyTables, format='" + format +
                           "', pandas_type '" + kind + "'), which slab does not read" + reads);
  }
  if (H5Aexists(grp, "columns") <= 0 && H5Aexists(grp, "CLASS") > 0 && H5Aexists(grp, "TITLE") > 0)
    SLAB_FAIL(IoError,
              where + " was written by PyTables (its CLASS and TITLE attributes), which slab does not read" + reads);
}

}  // namespace

Frame read_hdf5(Engine& engine, const std::string& file, const std::string& group_in, std::int64_t rows_per_partition) {
  const Comm& comm = engine.comm();
  const std::string gpath = absolute(group_in);
  const std::string where = file + ":" + gpath;
  std::vector<ReadColumn> cols;
  std::uint64_t total = 0, row0 = 0, n = 0;
  comm.run_collectively([&] {
    struct stat st {};
    if (::stat(file.c_str(), &st) != 0) SLAB_FAIL(IoError, file + ": no such file");
    detail::hdf5_quiet();
    if (H5Fis_hdf5(file.c_str()) <= 0) {
      H5Eclear2(H5E_DEFAULT);
      SLAB_FAIL(IoError, file + ": not an HDF5 file");
    }
    H5Handle fapl(H5Pcreate(H5P_FILE_ACCESS));
    H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG);
    H5Handle fid(H5Fopen(file.c_str(), H5F_ACC_RDONLY, fapl));
    if (fid.get() < 0) SLAB_FAIL(IoError, file + ": cannot open: " + detail::hdf5_error_reason());
    if (!path_exists(fid, gpath)) SLAB_FAIL(IoError, file + ": no group '" + gpath + "'");
    H5Handle grp(H5Gopen2(fid, gpath.c_str(), H5P_DEFAULT));
    if (grp.get() < 0) SLAB_FAIL(IoError, where + " is not a group");
    refuse_pytables(grp, where);
    std::vector<std::string> names;
    if (H5Aexists(grp, "columns") > 0) {
      H5Handle a(SLAB_HDF5_TRY(where, H5Aopen(grp, "columns", H5P_DEFAULT)));
      names = read_strings(a, true, where + " attribute 'columns'");
    } else {
      std::vector<std::string> all;
      SLAB_HDF5_TRY(where, H5Literate(grp, H5_INDEX_NAME, H5_ITER_INC, nullptr, collect_name, &all));
      for (auto& s : all)
        if (!s.empty() && s[0] != '.' && !(s.size() > 6 && s.ends_with(".valid"))) names.push_back(s);
    }
    bool first = true;
    const auto p = static_cast<std::uint64_t>(comm.size()), r = static_cast<std::uint64_t>(comm.rank());
    for (const auto& name : names) {
      const std::string ctx = where + "/" + name;
      if (H5Lexists(grp, name.c_str(), H5P_DEFAULT) <= 0)
        SLAB_FAIL(IoError, ctx + ": no such column (listed in 'columns')");
      H5O_info_t oi;
      SLAB_HDF5_TRY(ctx, H5Oget_info_by_name2(grp, name.c_str(), &oi, H5O_INFO_BASIC, H5P_DEFAULT));
      ReadColumn col;
      col.name = name;
      H5Handle d;  // the values (codes for strings)
      H5Handle sub;
      if (oi.type == H5O_TYPE_GROUP) {
        sub = H5Handle(SLAB_HDF5_TRY(ctx, H5Gopen2(grp, name.c_str(), H5P_DEFAULT)));
        if (H5Lexists(sub, "codes", H5P_DEFAULT) <= 0 || H5Lexists(sub, "categories", H5P_DEFAULT) <= 0)
          SLAB_FAIL(IoError, ctx + ": a string column needs 'codes' and 'categories'");
        d = H5Handle(SLAB_HDF5_TRY(ctx, H5Dopen2(sub, "codes", H5P_DEFAULT)));
        col.type = ElementType::string;
      } else if (oi.type == H5O_TYPE_DATASET) {
        d = H5Handle(SLAB_HDF5_TRY(ctx, H5Dopen2(grp, name.c_str(), H5P_DEFAULT)));
        H5Handle ft(H5Dget_type(d));
        const H5T_class_t cls = H5Tget_class(ft);
        const std::size_t size = H5Tget_size(ft);
        if (cls == H5T_FLOAT)
          col.type = ElementType::float64;
        else if (cls == H5T_ENUM && size == 1)
          col.type = ElementType::boolean;
        else if (cls == H5T_INTEGER && size == 1)
          col.type = ElementType::boolean;
        else if (cls == H5T_INTEGER)
          col.type = H5Aexists(d, "unit") > 0 ? ElementType::timestamp : ElementType::int64;
        else
          SLAB_FAIL(IoError, ctx + ": unsupported dtype (expected integer, float, bool or a codes/categories group)");
        if (col.type == ElementType::timestamp) {
          H5Handle a(SLAB_HDF5_TRY(ctx, H5Aopen(d, "unit", H5P_DEFAULT)));
          auto unit = read_strings(a, true, ctx + " attribute 'unit'");
          if (unit.size() != 1 || unit[0] != "ns")
            SLAB_FAIL(IoError, ctx + ": timestamp unit '" + (unit.empty() ? "" : unit[0]) + "'; expected 'ns'");
        }
      } else {
        SLAB_FAIL(IoError, ctx + " is neither a dataset nor a group");
      }
      const std::uint64_t len = dataset_length(d, ctx);
      if (first) {
        total = len, row0 = total * r / p, n = total * (r + 1) / p - row0, first = false;
      } else if (len != total) {
        SLAB_FAIL(IoError, ctx + " has " + std::to_string(len) + " rows; the frame's other columns have " +
                               std::to_string(total));
      }
      col.values = gpath + "/" + name + (col.type == ElementType::string ? "/codes" : "");
      if (col.type == ElementType::boolean) {
        H5Handle ft(H5Dget_type(d));
        col.bool_enum = H5Tget_class(ft) == H5T_ENUM;
      }
      if (col.type == ElementType::string) {
        H5Handle cd(SLAB_HDF5_TRY(ctx, H5Dopen2(sub, "categories", H5P_DEFAULT)));
        std::vector<std::string> cats = read_strings(cd, false, ctx + "/categories");
        std::vector<std::string> sorted = cats;
        std::sort(sorted.begin(), sorted.end());
        sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
        col.remap.resize(cats.size());
        for (std::size_t i = 0; i < cats.size(); ++i)
          col.remap[i] =
              static_cast<std::int32_t>(std::lower_bound(sorted.begin(), sorted.end(), cats[i]) - sorted.begin());
        col.dictionary = std::move(sorted);
      }
      const std::string vname = name + ".valid";
      if (col.type != ElementType::string && H5Lexists(grp, vname.c_str(), H5P_DEFAULT) > 0) {
        H5Handle vd(SLAB_HDF5_TRY(ctx, H5Dopen2(grp, vname.c_str(), H5P_DEFAULT)));
        if (dataset_length(vd, ctx + ".valid") != total)
          SLAB_FAIL(IoError, ctx + ".valid has another length than the column");
        col.valid = gpath + "/" + vname;
      }
      cols.push_back(std::move(col));
    }
  });

  std::vector<Field> fields;
  std::vector<Dictionary> dicts;
  std::vector<ElementType> types;
  std::vector<bool> has_valid;  // a mask in the batch (strings carry nulls as code -1, floats as NaN)
  for (auto& c : cols) {
    fields.push_back({c.name, c.type});
    dicts.push_back(c.type == ElementType::string ? make_dictionary(c.dictionary) : nullptr);
    types.push_back(c.type);
    has_valid.push_back(!c.valid.empty() && c.type != ElementType::float64);
  }
  Schema schema(fields, dicts);
  auto shared = std::make_shared<const std::vector<ReadColumn>>(std::move(cols));
  const auto nn = static_cast<std::int64_t>(n);
  // One partition per rank unless asked; out of core (the rank's rows over the memory budget of the eight buffers
  // a shuffle holds around a partition) as many as keep one within that budget.
  std::int64_t per = rows_per_partition;
  if (per <= 0) {
    const std::uint64_t row_bytes = std::max<std::uint64_t>(
        (BatchBuilder::size_for(1024, types, has_valid) - BatchBuilder::size_for(0, types, has_valid)) / 1024, 1);
    const auto budget = static_cast<std::int64_t>(std::max<std::uint64_t>(engine.memory().budget(8) / row_bytes, 1));
    per = std::max<std::int64_t>(nn <= budget ? nn : budget, 1);
  }
  const std::string path = file;
  std::vector<Chunk> parts;
  std::vector<std::optional<std::int64_t>> known;
  for (std::int64_t b = 0; b < nn; b += per) {
    const std::int64_t e = std::min(nn, b + per);
    const std::uint64_t first = row0 + static_cast<std::uint64_t>(b), rows = static_cast<std::uint64_t>(e - b);
    parts.push_back(engine.tasks().submit(
        "read_hdf5", {},
        [shared, types, has_valid, path, first, rows](TaskContext& ctx) {
          // A device task: on a GPU the batch is in device memory and each column reaches it through page-locked
          // staging, its nulls and codes put right on the host block before the block's copy, which overlaps the
          // read of the next (staged_read.hpp).
          BatchBuilder out(ctx, static_cast<std::int64_t>(rows), types, has_valid);
          MemoryManager& memory = ctx.memory();
          H5Handle fapl(SLAB_HDF5_TRY(path, H5Pcreate(H5P_FILE_ACCESS)));
          SLAB_HDF5_TRY(path, H5Pset_file_locking(fapl, 0, 1));
          detail::hdf5_quiet();
          const hid_t id = H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl);
          if (id < 0) SLAB_FAIL(IoError, path + ": cannot open: " + detail::hdf5_error_reason());
          H5Handle fid(id);
          for (std::size_t c = 0; c < types.size(); ++c) {
            const ReadColumn& col = (*shared)[c];
            const std::string ctx_name = path + ":" + col.values;
            const std::string valid_name = path + ":" + col.valid;
            H5Handle d(SLAB_HDF5_TRY(ctx_name, H5Dopen2(fid, col.values.c_str(), H5P_DEFAULT)));
            H5Handle vd;  // the `.valid` mask (strings carry nulls as negative codes)
            if (!col.valid.empty() && col.type != ElementType::string)
              vd = H5Handle(SLAB_HDF5_TRY(valid_name, H5Dopen2(fid, col.valid.c_str(), H5P_DEFAULT)));
            H5Handle bool_type;  // h5py's bool enum is read with its native type
            if (col.type == ElementType::boolean && col.bool_enum) {
              H5Handle ft(H5Dget_type(d));
              bool_type = H5Handle(H5Tget_native_type(ft, H5T_DIR_ASCEND));
            }
            hid_t mem_type = H5T_NATIVE_INT64;
            if (col.type == ElementType::float64) mem_type = H5T_NATIVE_DOUBLE;
            if (col.type == ElementType::boolean) mem_type = col.bool_enum ? bool_type.get() : H5T_NATIVE_UINT8;
            if (col.type == ElementType::string) mem_type = H5T_NATIVE_INT32;
            const std::uint64_t width = element_size(col.type);  // the batch layout: 8, 1 for bools, 4 for codes
            std::vector<std::uint8_t> valid;  // a slab's mask, for a float column's NaN
            detail::read_rows_staged(
                out.data(c), rows, width, memory, kStagingSlabBytes, "hdf5 read staging",
                [&](std::uint64_t r, std::uint64_t h, std::byte* block) {
                  read_rows(d, mem_type, first + r, h, block, ctx_name);
                  if (col.type == ElementType::boolean) {
                    for (std::uint64_t i = 0; i < h; ++i) block[i] = std::byte(block[i] != std::byte{0} ? 1 : 0);
                  } else if (col.type == ElementType::string) {
                    auto* codes = reinterpret_cast<std::int32_t*>(block);
                    for (std::uint64_t i = 0; i < h; ++i) {
                      std::int32_t& code = codes[i];
                      if (code < 0) {
                        code = -1;  // null
                      } else if (static_cast<std::size_t>(code) >= col.remap.size()) {
                        SLAB_FAIL(IoError, ctx_name + " holds code " + std::to_string(code) + " beyond the " +
                                               std::to_string(col.remap.size()) + " categories");
                      } else {
                        code = col.remap[static_cast<std::size_t>(code)];
                      }
                    }
                  } else if (col.type == ElementType::float64 && vd.get() >= 0) {  // floats carry nulls as NaN
                    valid.resize(h);
                    read_rows(vd, H5T_NATIVE_UINT8, first + r, h, valid.data(), valid_name);
                    auto* f = reinterpret_cast<double*>(block);
                    for (std::uint64_t i = 0; i < h; ++i)
                      if (!valid[i]) f[i] = std::numeric_limits<double>::quiet_NaN();
                  }
                });
            if (col.type == ElementType::float64 || vd.get() < 0) continue;
            detail::read_rows_staged(out.valid(c), rows, 1, memory, kStagingSlabBytes, "hdf5 read staging",
                                     [&](std::uint64_t r, std::uint64_t h, std::byte* block) {
                                       read_rows(vd, H5T_NATIVE_UINT8, first + r, h, block, valid_name);
                                       for (std::uint64_t i = 0; i < h; ++i)
                                         block[i] = std::byte(block[i] != std::byte{0} ? 1 : 0);
                                     });
          }
        },
        device_task(TraceKind::io)));
    known.emplace_back(e - b);
  }
  return Frame(engine, std::move(schema), std::move(parts), std::move(known));
}

}  // namespace slab::io
