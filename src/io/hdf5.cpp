// Parallel HDF5 on raw buffers: validation, hyperslab reads, the atomic collective writer.
#include "slab/io/hdf5.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <sstream>
#include <vector>

#include "io/hdf5_error.hpp"
#include "io/staged_read.hpp"
#include "slab/core/fault.hpp"
#include "slab/core/log.hpp"
#include "slab/memory/checksum.hpp"
#include "slab/trace/tracer.hpp"

namespace slab::io {

namespace detail {

void hdf5_quiet() noexcept {
  static std::once_flag once;
  std::call_once(once, [] { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); });
}

std::string hdf5_error_stack() {
  std::string text;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_DOWNWARD,
      [](unsigned n, const H5E_error2_t* e, void* data) -> herr_t {
        auto& s = *static_cast<std::string*>(data);
        if (n > 0) s += "; ";
        s += std::string(e->func_name ? e->func_name : "?") + "(): " + (e->desc ? e->desc : "");
        return 0;
      },
      &text);
  H5Eclear2(H5E_DEFAULT);
  return text.empty() ? std::string("(no HDF5 error stack)") : text;
}

std::string hdf5_error_reason() {
  struct Walk {
    std::string innermost, stack;
  } w;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_DOWNWARD,
      [](unsigned n, const H5E_error2_t* e, void* data) -> herr_t {
        auto& walk = *static_cast<Walk*>(data);
        walk.innermost = e->desc ? e->desc : "";
        if (n > 0) walk.stack += "; ";
        walk.stack += std::string(e->func_name ? e->func_name : "?") + "(): " + walk.innermost;
        return 0;
      },
      &w);
  H5Eclear2(H5E_DEFAULT);
  const std::string& innermost = w.innermost;
  const std::string& stack = w.stack;
  if (stack.empty()) return "no reason given by HDF5";
  log(LogLevel::debug, "HDF5 error stack: " + stack, true);
  // The system's words where the innermost entry quotes them: an MPI-IO error string ("MPI_ERR_NO_SUCH_FILE:
  // no such file or directory") or a POSIX error message ("No space left on device").
  auto quoted = [&](const std::string& marker) -> std::string {
    const auto at = innermost.find(marker);
    if (at == std::string::npos) return {};
    const auto from = at + marker.size(), to = innermost.find('\'', from);
    std::string q = innermost.substr(from, to == std::string::npos ? std::string::npos : to - from);
    if (q.rfind("MPI_ERR_", 0) == 0 && q.find(": ") != std::string::npos) q = q.substr(q.find(": ") + 2);
    return q;
  };
  for (const char* marker : {"MPI error string is '", "error message = '"})
    if (std::string q = quoted(marker); !q.empty()) return q;
  return innermost.empty() ? stack : innermost;
}

void H5Handle::reset() noexcept {
  if (id_ < 0) return;
  switch (H5Iget_type(id_)) {
    case H5I_FILE:
      H5Fclose(id_);
      break;
    case H5I_DATASET:
      H5Dclose(id_);
      break;
    case H5I_DATASPACE:
      H5Sclose(id_);
      break;
    case H5I_DATATYPE:
      H5Tclose(id_);
      break;
    case H5I_GENPROP_LST:
      H5Pclose(id_);
      break;
    case H5I_GROUP:
      H5Gclose(id_);
      break;
    case H5I_ATTR:
      H5Aclose(id_);
      break;
    default:
      break;
  }
  id_ = H5I_INVALID_HID;
}

}  // namespace detail

namespace {

using detail::H5Handle;

hid_t mem_type_of(ElementType t) {
  switch (t) {
    case ElementType::float32:
      return H5T_NATIVE_FLOAT;
    case ElementType::float64:
      return H5T_NATIVE_DOUBLE;
    case ElementType::int64:
    case ElementType::timestamp:
      return H5T_NATIVE_INT64;
    case ElementType::int32:
    case ElementType::string:
      return H5T_NATIVE_INT32;
    case ElementType::uint64:
      return H5T_NATIVE_UINT64;
    case ElementType::uint32:
      return H5T_NATIVE_UINT32;
    case ElementType::int8:
      return H5T_NATIVE_INT8;
    case ElementType::uint8:
    case ElementType::boolean:
    case ElementType::bytes:
      return H5T_NATIVE_UINT8;
  }
  return H5T_NATIVE_DOUBLE;
}

std::string absolute(const std::string& dataset) {
  return dataset.empty() || dataset[0] != '/' ? "/" + dataset : dataset;
}

// Every link along the path exists (H5Lexists on "/a/b" fails when "/a" is missing, so walk it).
bool path_exists(hid_t file, const std::string& path) {
  std::string prefix;
  std::size_t pos = 1;
  while (pos <= path.size()) {
    std::size_t next = path.find('/', pos);
    if (next == std::string::npos) next = path.size();
    if (next > pos) {
      prefix += "/" + path.substr(pos, next - pos);
      const htri_t e = H5Lexists(file, prefix.c_str(), H5P_DEFAULT);
      if (e <= 0) {
        H5Eclear2(H5E_DEFAULT);
        return false;
      }
    }
    pos = next + 1;
  }
  return !prefix.empty();
}

void check_file_is_hdf5(const std::string& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) SLAB_FAIL(IoError, file + ": no such file");
  if (!S_ISREG(st.st_mode)) SLAB_FAIL(IoError, file + ": not a regular file");
  detail::hdf5_quiet();
  const htri_t is = H5Fis_hdf5(file.c_str());
  H5Eclear2(H5E_DEFAULT);
  if (is <= 0) SLAB_FAIL(IoError, file + ": not an HDF5 file");
}

H5Handle mpio_fapl(const Comm& comm, const std::string& context) {
  H5Handle fapl(SLAB_HDF5_TRY(context, H5Pcreate(H5P_FILE_ACCESS)));
  SLAB_HDF5_TRY(context, H5Pset_fapl_mpio(fapl, comm.mpi(), MPI_INFO_NULL));
  SLAB_HDF5_TRY(context, H5Pset_file_locking(fapl, 0, 1));
  return fapl;
}

// Validate an open dataset (the file's own handle): rank and dtype; fills info.
void describe(hid_t file, DatasetInfo& info) {
  const std::string name = info.name();
  if (!path_exists(file, info.dataset)) SLAB_FAIL(IoError, info.file + ": no dataset '" + info.dataset + "'");
  H5O_info_t oinfo{};
  SLAB_HDF5_TRY(name, H5Oget_info_by_name2(file, info.dataset.c_str(), &oinfo, H5O_INFO_BASIC, H5P_DEFAULT));
  if (oinfo.type != H5O_TYPE_DATASET) SLAB_FAIL(IoError, name + " is not a dataset");
  H5Handle dset(SLAB_HDF5_TRY(name, H5Dopen2(file, info.dataset.c_str(), H5P_DEFAULT)));
  H5Handle space(SLAB_HDF5_TRY(name, H5Dget_space(dset)));
  const int ndims = SLAB_HDF5_TRY(name, H5Sget_simple_extent_ndims(space));
  if (ndims != 1 && ndims != 2)
    SLAB_FAIL(ShapeError, name + " has rank " + std::to_string(ndims) + "; expected 1 or 2");
  hsize_t dims[2] = {0, 0};
  SLAB_HDF5_TRY(name, H5Sget_simple_extent_dims(space, dims, nullptr));
  info.shape.assign(dims, dims + ndims);
  H5Handle type(SLAB_HDF5_TRY(name, H5Dget_type(dset)));
  const H5T_class_t cls = H5Tget_class(type);
  const std::size_t size = H5Tget_size(type);
  std::string found;
  if (cls == H5T_FLOAT && size == 4)
    info.type = ElementType::float32;
  else if (cls == H5T_FLOAT && size == 8)
    info.type = ElementType::float64;
  else if (cls == H5T_INTEGER && size == 8 && H5Tget_sign(type) == H5T_SGN_2)
    info.type = ElementType::int64;
  else if (cls == H5T_INTEGER && size == 4 && H5Tget_sign(type) == H5T_SGN_2)
    info.type = ElementType::int32;
  else {
    switch (cls) {
      case H5T_INTEGER:
        found = std::string(H5Tget_sign(type) == H5T_SGN_2 ? "int" : "uint") + std::to_string(8 * size);
        break;
      case H5T_FLOAT:
        found = "float" + std::to_string(8 * size);
        break;
      case H5T_STRING:
        found = "string";
        break;
      case H5T_COMPOUND:
        found = "compound";
        break;
      default:
        found = "class " + std::to_string(static_cast<int>(cls)) + " of " + std::to_string(size) + " bytes";
    }
    SLAB_FAIL(TypeError, name + " has dtype " + found + "; expected float32, float64, int32 or int64");
  }
  H5Handle dcpl(SLAB_HDF5_TRY(name, H5Dget_create_plist(dset)));
  info.chunk.clear();
  if (H5Pget_layout(dcpl) == H5D_CHUNKED) {
    hsize_t c[2] = {0, 0};
    SLAB_HDF5_TRY(name, H5Pget_chunk(dcpl, ndims, c));
    info.chunk.assign(c, c + ndims);
  }
  info.filtered = H5Pget_nfilters(dcpl) > 0;
}

// Select rows x cols of a 1-D or 2-D dataspace.
void select(hid_t space, std::size_t ndims, std::uint64_t row0, std::uint64_t nrows, std::uint64_t col0,
            std::uint64_t ncols, const std::string& context) {
  hsize_t start[2] = {row0, col0};
  hsize_t count[2] = {nrows, ncols};
  if (nrows == 0 || ncols == 0) {
    SLAB_HDF5_TRY(context, H5Sselect_none(space));
    return;
  }
  SLAB_HDF5_TRY(context, H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, count, nullptr));
  (void)ndims;
}

void check_box(const std::vector<std::uint64_t>& shape, std::uint64_t row0, std::uint64_t nrows, std::uint64_t col0,
               std::uint64_t ncols, const std::string& name) {
  const std::uint64_t rows = shape.empty() ? 0 : shape[0];
  const std::uint64_t cols = shape.size() < 2 ? 1 : shape[1];
  // Written so that no sum can wrap around (a huge row0 + nrows would otherwise pass).
  if (row0 > rows || nrows > rows - row0 || col0 > cols || ncols > cols - col0 ||
      (shape.size() == 1 && (col0 != 0 || ncols > 1)))
    SLAB_FAIL(ShapeError, name + ": block rows [" + std::to_string(row0) + ", " + std::to_string(row0 + nrows) +
                              ") x cols [" + std::to_string(col0) + ", " + std::to_string(col0 + ncols) +
                              ") is outside the dataset's " + std::to_string(rows) + " x " + std::to_string(cols));
}

std::string parent_of(const std::string& path) {
  const auto pos = path.rfind('/');
  return pos == 0 ? "/" : path.substr(0, pos);
}

}  // namespace

DatasetInfo inspect(const Comm& comm, const std::string& file, const std::string& dataset) {
  DatasetInfo info;
  info.file = file;
  info.dataset = absolute(dataset);
  comm.run_collectively([&] { check_file_is_hdf5(file); });
  // Collective open with MPI-IO: every rank must reach H5Fopen, then agree.
  H5Handle fid;
  comm.run_collectively([&] {
    H5Handle fapl = mpio_fapl(comm, file);
    detail::hdf5_quiet();
    const hid_t id = H5Fopen(file.c_str(), H5F_ACC_RDONLY, fapl);
    if (id < 0) SLAB_FAIL(IoError, file + ": cannot open: " + detail::hdf5_error_reason());
    fid = H5Handle(id);
  });
  std::exception_ptr error;
  try {
    describe(fid, info);
  } catch (...) {
    error = std::current_exception();
  }
  fid.reset();  // collective close (every rank reaches it)
  comm.agree(error);
  return info;
}

DatasetInfo inspect(const Comm& comm, const std::string& file, const std::string& dataset, ElementType expected) {
  DatasetInfo info = inspect(comm, file, dataset);
  comm.run_collectively([&] {
    if (info.type != expected)
      SLAB_FAIL(TypeError, info.name() + " is " + std::string(to_string(info.type)) + "; expected " +
                               std::string(to_string(expected)));
  });
  return info;
}

bool exists(const Comm& comm, const std::string& file, const std::string& dataset) {
  int found = 0;
  if (comm.rank() == 0) {
    struct stat st {};
    detail::hdf5_quiet();
    if (::stat(file.c_str(), &st) == 0 && H5Fis_hdf5(file.c_str()) > 0) {
      H5Handle fapl(H5Pcreate(H5P_FILE_ACCESS));
      H5Pset_file_locking(fapl, 0, 1);
      H5Handle fid(H5Fopen(file.c_str(), H5F_ACC_RDONLY, fapl));
      if (fid.get() >= 0) found = path_exists(fid, absolute(dataset)) ? 1 : 0;
    }
    H5Eclear2(H5E_DEFAULT);
  }
  comm.bcast(std::span<int>(&found, 1), 0);
  return found != 0;
}

namespace {

// One dataset opened read-only on this rank alone (sec2 driver, no file lock), for reading hyperslabs of it.
struct OpenDataset {
  H5Handle fid, dset;
  OpenDataset(const DatasetInfo& info, const std::string& name) {
    H5Handle fapl(SLAB_HDF5_TRY(name, H5Pcreate(H5P_FILE_ACCESS)));
    SLAB_HDF5_TRY(name, H5Pset_file_locking(fapl, 0, 1));
    detail::hdf5_quiet();
    const hid_t id = H5Fopen(info.file.c_str(), H5F_ACC_RDONLY, fapl);
    if (id < 0) SLAB_FAIL(IoError, name + ": cannot open: " + detail::hdf5_error_reason());
    fid = H5Handle(id);
    dset = H5Handle(SLAB_HDF5_TRY(name, H5Dopen2(fid, info.dataset.c_str(), H5P_DEFAULT)));
  }
  void read(const DatasetInfo& info, std::uint64_t row0, std::uint64_t nrows, std::uint64_t col0, std::uint64_t ncols,
            ElementType mem_type, void* out, const std::string& name) const {
    H5Handle fspace(SLAB_HDF5_TRY(name, H5Dget_space(dset)));
    select(fspace, info.shape.size(), row0, nrows, col0, ncols, name);
    hsize_t mdims[2] = {nrows, ncols};
    H5Handle mspace(SLAB_HDF5_TRY(name, H5Screate_simple(info.shape.size() == 1 ? 1 : 2, mdims, nullptr)));
    SLAB_HDF5_TRY(name, H5Dread(dset, mem_type_of(mem_type), mspace, fspace, H5P_DEFAULT, out));
  }
};

std::string block_name(const DatasetInfo& info, std::uint64_t row0, std::uint64_t nrows, std::uint64_t col0,
                       std::uint64_t ncols) {
  return info.name() + " rows [" + std::to_string(row0) + ", " + std::to_string(row0 + nrows) + ") cols [" +
         std::to_string(col0) + ", " + std::to_string(col0 + ncols) + ")";
}

}  // namespace

void read_block(const DatasetInfo& info, std::uint64_t row0, std::uint64_t nrows, std::uint64_t col0,
                std::uint64_t ncols, ElementType mem_type, void* out) {
  const std::string name = block_name(info, row0, nrows, col0, ncols);
  check_box(info.shape, row0, nrows, col0, ncols, info.name());
  if (nrows == 0 || ncols == 0) return;
  OpenDataset(info, name).read(info, row0, nrows, col0, ncols, mem_type, out, name);
}

void read_block_to(const DatasetInfo& info, std::uint64_t row0, std::uint64_t nrows, std::uint64_t col0,
                   std::uint64_t ncols, ElementType mem_type, void* out, MemoryManager& memory,
                   std::uint64_t slab_bytes) {
  const std::string name = block_name(info, row0, nrows, col0, ncols);
  check_box(info.shape, row0, nrows, col0, ncols, info.name());
  if (nrows == 0 || ncols == 0) return;
  const OpenDataset file(info, name);
  // Slabs of whole rows (contiguous in `out`) through staging on a GPU (staged_read.hpp); one read elsewhere.
  detail::read_rows_staged(out, nrows, ncols * element_size(mem_type), memory, slab_bytes, "hdf5 read staging",
                           [&](std::uint64_t r, std::uint64_t h, std::byte* block) {
                             file.read(info, row0 + r, h, col0, ncols, mem_type, block, name);
                           });
}

std::uint64_t dataset_checksum(const DatasetInfo& info) {
  Checksum64 sum;
  const std::uint64_t rows = info.rows();
  const std::uint64_t cols = info.cols();
  const std::size_t es = element_size(info.type);
  const std::uint64_t step =
      std::max<std::uint64_t>(1, (std::uint64_t{64} << 20) / std::max<std::uint64_t>(1, cols * es));
  std::vector<std::byte> buf;
  for (std::uint64_t r = 0; r < rows; r += step) {
    const std::uint64_t nr = std::min(step, rows - r);
    buf.resize(nr * cols * es);
    read_block(info, r, nr, 0, cols, info.type, buf.data());
    sum.update(buf.data(), buf.size());
  }
  return sum.digest();
}

// ---------------------------------------------------------------------------------------------------------
// DatasetWriter

DatasetWriter::DatasetWriter(const Comm& comm, std::string file, std::string dataset, ElementType type,
                             std::vector<std::uint64_t> shape, std::vector<std::uint64_t> chunk)
    : comm_(comm), file_(std::move(file)), dataset_(absolute(dataset)), type_(type), shape_(std::move(shape)) {
  const std::string name = file_ + ":" + dataset_;
  const Tracer::Scope traced(comm_.tracer(), "hdf5_create", TraceKind::io);
  comm_.run_collectively([&] {
    if (shape_.size() != 1 && shape_.size() != 2)
      SLAB_FAIL(ShapeError,
                name + ": cannot write a dataset of rank " + std::to_string(shape_.size()) + "; expected 1 or 2");
    if (!chunk.empty() && chunk.size() != shape_.size())
      SLAB_FAIL(ShapeError, name + ": chunk rank differs from the dataset's");
    for (auto c : chunk)
      if (c == 0) SLAB_FAIL(ShapeError, name + ": zero chunk extent");
    if (dataset_ == "/" || dataset_.back() == '/') SLAB_FAIL(InvalidArgument, name + ": not a dataset name");
    struct stat st {};
    if (::stat(file_.c_str(), &st) == 0) {
      detail::hdf5_quiet();
      if (H5Fis_hdf5(file_.c_str()) <= 0) {
        H5Eclear2(H5E_DEFAULT);
        SLAB_FAIL(IoError, file_ + ": exists and is not an HDF5 file; not overwriting it");
      }
    }
  });
  // Every rank decides the same way: rank 0 looks whether the file exists.
  int present = 0;
  if (comm_.rank() == 0) {
    struct stat st {};
    present = ::stat(file_.c_str(), &st) == 0 ? 1 : 0;
  }
  comm_.bcast(std::span<int>(&present, 1), 0);
  try {
    comm_.run_collectively([&] {
      H5Handle fapl = mpio_fapl(comm_, file_);
      detail::hdf5_quiet();
      const hid_t id = present ? H5Fopen(file_.c_str(), H5F_ACC_RDWR, fapl)
                               : H5Fcreate(file_.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, fapl);
      if (id < 0)
        SLAB_FAIL(IoError,
                  file_ + ": cannot " + (present ? "open for writing" : "create") + ": " + detail::hdf5_error_reason());
      file_id_ = id;
    });
  } catch (...) {
    close_handles();
    throw;
  }
  const std::string parent = parent_of(dataset_);
  temp_ = (parent == "/" ? std::string() : parent) + "/." + dataset_.substr(parent.size() + (parent == "/" ? 0 : 1)) +
          ".slab-tmp";
  // Inspection (read-only metadata) on every rank gives every rank the same answer.
  std::exception_ptr error;
  try {
    if (parent != "/" && !path_exists(file_id_, parent)) SLAB_FAIL(IoError, file_ + ": no group '" + parent + "'");
    if (path_exists(file_id_, dataset_)) {
      H5O_info_t oinfo{};
      SLAB_HDF5_TRY(name, H5Oget_info_by_name2(file_id_, dataset_.c_str(), &oinfo, H5O_INFO_BASIC, H5P_DEFAULT));
      if (oinfo.type != H5O_TYPE_DATASET) SLAB_FAIL(IoError, name + " exists and is not a dataset; not replacing it");
    }
  } catch (...) {
    error = std::current_exception();
  }
  agree_or_close(error);
  // Collective metadata changes: remove a stale temporary, create the new one.
  error = nullptr;
  try {
    if (path_exists(file_id_, temp_)) SLAB_HDF5_TRY(name, H5Ldelete(file_id_, temp_.c_str(), H5P_DEFAULT));
    hsize_t dims[2] = {shape_[0], shape_.size() > 1 ? shape_[1] : 1};
    H5Handle space(SLAB_HDF5_TRY(name, H5Screate_simple(static_cast<int>(shape_.size()), dims, nullptr)));
    H5Handle dcpl(SLAB_HDF5_TRY(name, H5Pcreate(H5P_DATASET_CREATE)));
    bool nonempty = true;
    for (auto d : shape_) nonempty = nonempty && d > 0;
    if (!chunk.empty() && nonempty) {
      hsize_t c[2] = {0, 0};
      for (std::size_t i = 0; i < chunk.size(); ++i) c[i] = std::min<std::uint64_t>(chunk[i], shape_[i]);
      SLAB_HDF5_TRY(name, H5Pset_chunk(dcpl, static_cast<int>(chunk.size()), c));
    }
    SLAB_HDF5_TRY(name, H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER));
    dset_id_ = SLAB_HDF5_TRY(
        name, H5Dcreate2(file_id_, temp_.c_str(), mem_type_of(type_), space, H5P_DEFAULT, dcpl, H5P_DEFAULT));
  } catch (...) {
    error = std::current_exception();
  }
  agree_or_close(error);
}

DatasetWriter::~DatasetWriter() { close_handles(); }

void DatasetWriter::agree_or_close(std::exception_ptr error) {
  try {
    comm_.agree(error);
  } catch (...) {
    close_handles();  // every rank fails here together: the collective close is safe
    throw;
  }
}

void DatasetWriter::close_handles() noexcept {
  if (dset_id_ >= 0) H5Dclose(dset_id_);
  dset_id_ = -1;
  if (file_id_ >= 0) H5Fclose(file_id_);
  file_id_ = -1;
  H5Eclear2(H5E_DEFAULT);
}

void DatasetWriter::write_impl(std::uint64_t row0, std::uint64_t nrows, std::uint64_t col0, std::uint64_t ncols,
                               const void* data, bool collective) {
  const std::string name = file_ + ":" + dataset_;
  const Tracer::Scope traced(comm_.tracer(), "hdf5_write", TraceKind::io, nrows * ncols * element_size(type_));
  try {
    SLAB_EXPECTS(dset_id_ >= 0, InvalidArgument, name + ": writer is closed");
    check_box(shape_, row0, nrows, col0, ncols, name);
    H5Handle fspace(SLAB_HDF5_TRY(name, H5Dget_space(dset_id_)));
    select(fspace, shape_.size(), row0, nrows, col0, ncols, name);
    hsize_t mdims[2] = {std::max<std::uint64_t>(nrows, 1), std::max<std::uint64_t>(ncols, 1)};
    H5Handle mspace(SLAB_HDF5_TRY(name, H5Screate_simple(shape_.size() == 1 ? 1 : 2, mdims, nullptr)));
    if (nrows == 0 || ncols == 0) SLAB_HDF5_TRY(name, H5Sselect_none(mspace));
    H5Handle dxpl(SLAB_HDF5_TRY(name, H5Pcreate(H5P_DATASET_XFER)));
    SLAB_HDF5_TRY(name, H5Pset_dxpl_mpio(dxpl, collective ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT));
    if (!collective && (nrows == 0 || ncols == 0)) return;
    static const double dummy = 0;
    if (data == nullptr) data = &dummy;  // an empty selection still needs a buffer pointer
    SLAB_HDF5_TRY(name, H5Dwrite(dset_id_, mem_type_of(type_), mspace, fspace, dxpl, data));
  } catch (...) {
    failed_ = true;
    throw;
  }
}

void DatasetWriter::write(std::uint64_t row0, std::uint64_t nrows, std::uint64_t col0, std::uint64_t ncols,
                          const void* data) {
  write_impl(row0, nrows, col0, ncols, data, false);
}

void DatasetWriter::write_collective(std::uint64_t row0, std::uint64_t nrows, std::uint64_t col0, std::uint64_t ncols,
                                     const void* data) {
  comm_.run_collectively([&] { write_impl(row0, nrows, col0, ncols, data, true); });
}

void DatasetWriter::commit() {
  const std::string name = file_ + ":" + dataset_;
  const Tracer::Scope traced(comm_.tracer(), "hdf5_commit", TraceKind::io);
  comm_.run_collectively([&] {
    if (committed_) SLAB_FAIL(InvalidArgument, name + ": already committed");
    if (failed_) SLAB_FAIL(IoError, name + ": a write failed; the dataset was not replaced");
  });
  std::exception_ptr error;
  try {
    SLAB_HDF5_TRY(name, H5Dclose(dset_id_));
    dset_id_ = -1;
    SLAB_HDF5_TRY(name, H5Fflush(file_id_, H5F_SCOPE_LOCAL));  // the data is on disk before the name appears
    SLAB_FAULT_POINT("hdf5_write");
  } catch (...) {
    error = std::current_exception();
  }
  comm_.agree(error);
  try {
    if (path_exists(file_id_, dataset_)) SLAB_HDF5_TRY(name, H5Ldelete(file_id_, dataset_.c_str(), H5P_DEFAULT));
    SLAB_HDF5_TRY(name, H5Lmove(file_id_, temp_.c_str(), file_id_, dataset_.c_str(), H5P_DEFAULT, H5P_DEFAULT));
    const hid_t f = file_id_;
    file_id_ = -1;
    SLAB_HDF5_TRY(name, H5Fclose(f));
  } catch (...) {
    error = std::current_exception();
  }
  comm_.agree(error);
  committed_ = true;
}

void write_generated(
    const Comm& comm, const std::string& file, const std::string& dataset, ElementType type,
    std::vector<std::uint64_t> shape, std::vector<std::uint64_t> chunk, std::uint64_t tile_rows,
    std::uint64_t tile_cols,
    const std::function<void(std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t, void*)>& fill) {
  DatasetWriter writer(comm, file, dataset, type, shape, std::move(chunk));
  const std::uint64_t rows = shape.empty() ? 0 : shape[0];
  const std::uint64_t cols = shape.size() < 2 ? 1 : shape[1];
  tile_rows = std::max<std::uint64_t>(1, std::min(tile_rows, std::max<std::uint64_t>(rows, 1)));
  tile_cols = std::max<std::uint64_t>(1, std::min(tile_cols, std::max<std::uint64_t>(cols, 1)));
  const std::uint64_t trs = (rows + tile_rows - 1) / tile_rows;
  const std::uint64_t tcs = (cols + tile_cols - 1) / tile_cols;
  std::vector<std::byte> buf;
  comm.run_collectively([&] {
    for (std::uint64_t t = static_cast<std::uint64_t>(comm.rank()); t < trs * tcs; t += comm.size()) {
      const std::uint64_t r0 = (t / tcs) * tile_rows;
      const std::uint64_t c0 = (t % tcs) * tile_cols;
      const std::uint64_t nr = std::min(tile_rows, rows - r0);
      const std::uint64_t nc = std::min(tile_cols, cols - c0);
      buf.resize(nr * nc * element_size(type));
      {
        const Tracer::Scope traced(comm.tracer(), "hdf5_fill", TraceKind::generate);
        fill(r0, nr, c0, nc, buf.data());
      }
      writer.write(r0, nr, c0, nc, buf.data());
    }
  });
  writer.commit();
}

}  // namespace slab::io
