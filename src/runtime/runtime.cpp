#include "slab/runtime/runtime.hpp"

#include <H5public.h>
#include <unistd.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "runtime/cuda/device.hpp"
#include "runtime/liveness.hpp"
#include "slab/core/error.hpp"
#include "slab/core/version.hpp"

namespace slab {

std::string_view to_string(DeviceCommPath path) noexcept {
  switch (path) {
    case DeviceCommPath::host:
      return "host (MPI)";
    case DeviceCommPath::nccl:
      return "nccl";
    case DeviceCommPath::host_staging:
      return "host staging (ranks share a GPU; MPI)";
  }
  return "?";
}

namespace {

std::uint64_t physical_memory() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGE_SIZE);
  return (pages > 0 && page > 0) ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : (1ull << 33);
}

// Agree on a failure seen on some ranks: every rank throws InvalidArgument with the lowest failing rank's
// message. (The comm layer has the general agree(); the runtime sits below it and needs only this.)
void agree_or_throw(MPI_Comm comm, const std::string& local_error) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  int size = 1;
  MPI_Comm_size(comm, &size);
  int mine = local_error.empty() ? size : rank;
  int first = size;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == size) return;
  std::string message = local_error;
  int n = static_cast<int>(message.size());
  MPI_Bcast(&n, 1, MPI_INT, first, comm);
  message.resize(n);
  MPI_Bcast(message.data(), n, MPI_CHAR, first, comm);
  SLAB_FAIL(InvalidArgument, message);
}

// A spill root must be a directory this rank can create files in. Checked by creating one.
std::string check_spill_root(const std::string& root, const char* what) {
  std::error_code ec;
  if (!std::filesystem::is_directory(root, ec)) return std::string(what) + ": '" + root + "' is not a directory";
  std::string probe = root + "/.slab-probe-XXXXXX";
  int fd = mkstemp(probe.data());
  if (fd < 0) return std::string(what) + ": '" + root + "' is not writable (" + std::strerror(errno) + ")";
  close(fd);
  unlink(probe.c_str());
  return {};
}

// SLAB_DEVICE_ORDER="3,2,1,0": the devices local ranks 0, 1, 2, ... take (cyclically). Checked on host builds
// too (a typo should not wait for a GPU machine); each ordinal must exist where there are devices.
std::vector<int> device_order(int count, std::string& error) {
  std::vector<int> order;
  const char* v = std::getenv("SLAB_DEVICE_ORDER");
  if (v == nullptr || *v == '\0') return order;
  const std::string text = v;
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    char* end = nullptr;
    const long d = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || d < 0 || d > 1023) {
      error = "SLAB_DEVICE_ORDER: '" + text + "' is not a comma-separated list of device ordinals (e.g. 3,2,1,0)";
      return {};
    }
    if (count > 0 && d >= count) {
      error = "SLAB_DEVICE_ORDER: device " + item + " does not exist (this process sees " + std::to_string(count) +
              " device" + (count == 1 ? "" : "s") + ")";
      return {};
    }
    order.push_back(static_cast<int>(d));
    start = comma + 1;
  }
  return order;
}

}  // namespace

struct Runtime::Impl {
  bool owns_mpi = false;
  bool owns_kokkos = false;
  RuntimeOptions options;
  MPI_Comm world = MPI_COMM_NULL;
  int rank = 0;
  int size = 1;
  int local_rank = 0;
  int local_size = 1;
  std::string hostname;
  DeviceInfo device;
  DeviceCommPath path = DeviceCommPath::host;
  std::uint64_t device_limit = 0;
  std::uint64_t host_limit = 0;
  std::string spill_root;
  double liveness_timeout = 0;
  void* stream = nullptr;
  // Where this rank computes: its GPU when it has one, unless --device-memory=off keeps the device tier in host memory.
  std::unique_ptr<ExecutionContext> execution = std::make_unique<ExecutionContext>();
  std::unique_ptr<Tracer> tracer;
  // Declared last: destroyed after the destructor's body, so the heartbeat runs through MPI_Finalize.
  std::unique_ptr<detail::Liveness> liveness;

  void init_mpi(int* argc, char*** argv) {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) {
      int provided = 0;
      MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
      owns_mpi = true;
      if (provided < MPI_THREAD_FUNNELED) {
        SLAB_FAIL(CommError, "the MPI library provides thread level " + std::to_string(provided) +
                                 ", below MPI_THREAD_FUNNELED which slab needs");
      }
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &world);
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);
  }

  void init_rest() {
    // The same options on every rank: every rank refuses alike, before any collective.
    SLAB_EXPECTS(!options.reference_kernels || built_with_kernel_reference, InvalidArgument,
                 "--kernels reference: this build has no reference kernels (the device kernels' CPU "
                 "instantiations need the CCCL/Thrust headers)");
    set_log_level(options.log_level);
    char host[256] = {0};
    gethostname(host, sizeof host - 1);
    hostname = host;

    MPI_Comm local = MPI_COMM_NULL;
    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local);
    MPI_Comm_rank(local, &local_rank);
    MPI_Comm_size(local, &local_size);
    MPI_Comm_free(&local);

    // One device per rank from the node-local rank. Where ranks outnumber GPUs on some node, every rank
    // uses host staging for device buffers (the choice must be the same everywhere).
    std::string device_error;
    const int count = detail::cuda_device_count();
    const std::vector<int> order = device_order(count, device_error);
    // The device of node-local rank r (SLAB_DEVICE_ORDER's list, or round robin).
    const auto device_of_local_rank = [&](int r) {
      return order.empty() ? r % count : order[static_cast<std::size_t>(r) % order.size()];
    };
    if (count > 0 && device_error.empty()) {
      device.id = device_of_local_rank(local_rank);
      try {
        detail::cuda_set_device(device.id);
        detail::cuda_device_properties(device.id, device.name, device.total_memory);
        device.pci_bus_id = detail::cuda_device_pci_bus_id(device.id);
        stream = detail::cuda_stream_create();
      } catch (const Error& e) {
        device_error = "device " + std::to_string(device.id) + " on " + hostname + ": " + e.message();
      }
    } else {
      device.total_memory = physical_memory() / static_cast<std::uint64_t>(local_size);
    }
    agree_or_throw(world, device_error);
    int any_gpu = count > 0 ? 1 : 0;
    int all_gpu = any_gpu;
    // Ranks share a GPU where they outnumber the devices they are spread over (all, or SLAB_DEVICE_ORDER's).
    std::vector<int> distinct = order;
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    const int usable = distinct.empty() ? count : static_cast<int>(distinct.size());
    int share = (count > 0 && local_size > usable) ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &all_gpu, 1, MPI_INT, MPI_MIN, world);
    MPI_Allreduce(MPI_IN_PLACE, &share, 1, MPI_INT, MPI_MAX, world);
    if (!all_gpu)
      path = DeviceCommPath::host;
    else
      path = share ? DeviceCommPath::host_staging : DeviceCommPath::nccl;

    // Ranks that share a GPU (more ranks than GPUs on the node) split its memory: each sizes its device tier from
    // its share, so that together they stay within the one device.
    std::uint64_t device_share = device.total_memory;
    if (count > 0 && device_error.empty()) {
      int sharing = 0;
      for (int r = 0; r < local_size; ++r)
        if (device_of_local_rank(r) == device.id) ++sharing;
      device_share /= static_cast<std::uint64_t>(std::max(sharing, 1));
    }
    device_limit = options.device_memory_limit.resolve(device_share);
    host_limit = options.host_memory_limit.resolve(physical_memory() / static_cast<std::uint64_t>(local_size));

    spill_root = options.spill_dir;
    const char* what = "--spill-dir";
    if (spill_root.empty()) {
      const char* tmp = std::getenv("TMPDIR");
      spill_root = (tmp && *tmp) ? tmp : "/tmp";
      what = "spill directory ($TMPDIR or /tmp)";
    }
    std::string spill_error = check_spill_root(spill_root, what);
    if (spill_error.empty() && !options.trace_file.empty() && rank == 0) {
      const auto parent = std::filesystem::absolute(options.trace_file).parent_path();
      std::error_code ec;
      if (!std::filesystem::is_directory(parent, ec))
        spill_error = "--trace: the folder of '" + options.trace_file + "' does not exist";
    }
    detail::LivenessSettings liveness_settings;
    if (std::string e = detail::read_liveness_settings(liveness_settings); spill_error.empty()) spill_error = e;
    agree_or_throw(world, spill_error);
    // A rank or host that disappears ends every other rank within a bounded time (runtime/liveness.hpp).
    liveness = detail::Liveness::start(world, hostname, liveness_settings);
    liveness_timeout = liveness ? liveness_settings.timeout : 0.0;

    if (!Kokkos::is_initialized()) {
#if KOKKOS_VERSION >= 30700  // InitializationSettings came in 3.7; InitArguments went in 4.0
      Kokkos::initialize(Kokkos::InitializationSettings()
                             .set_num_threads(1)
                             .set_device_id(device.id >= 0 ? device.id : 0)
                             .set_disable_warnings(true));
#else
      Kokkos::InitArguments args;
      args.num_threads = 1;
      args.device_id = device.id >= 0 ? device.id : 0;
      args.disable_warnings = true;
      Kokkos::initialize(args);
#endif
      owns_kokkos = owns_mpi;  // a host program that initialised MPI itself also finalises Kokkos itself
    }
    if (device.id >= 0 && stream != nullptr && options.device_memory.value_or(true))
      execution = std::make_unique<ExecutionContext>(ExecutionPlace::cuda, device.id, stream);
    else if (options.reference_kernels)
      execution = std::make_unique<ExecutionContext>(ExecutionPlace::reference, -1, nullptr);
    tracer = std::make_unique<Tracer>(world);
  }

  ~Impl() {
    tracer.reset();
    execution.reset();  // its cuBLAS/cuSOLVER handles go before the stream
    detail::cuda_stream_destroy(stream);
    if (owns_kokkos && Kokkos::is_initialized()) Kokkos::finalize();
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (world != MPI_COMM_NULL && !finalized) MPI_Comm_free(&world);
    if (owns_mpi && !finalized) MPI_Finalize();
  }
};

Runtime::Runtime(int& argc, char**& argv) : impl_(std::make_unique<Impl>()) {
  impl_->init_mpi(&argc, &argv);
  // Every rank parses the same argv, so a bad flag throws the same error on every rank.
  impl_->options = RuntimeOptions::from_environment();
  impl_->options.consume_flags(argc, argv);
  impl_->init_rest();
}

Runtime::Runtime(RuntimeOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->init_mpi(nullptr, nullptr);
  impl_->options = std::move(options);
  impl_->init_rest();
}

Runtime::~Runtime() = default;

MPI_Comm Runtime::world() const noexcept { return impl_->world; }
int Runtime::rank() const noexcept { return impl_->rank; }
int Runtime::size() const noexcept { return impl_->size; }
int Runtime::local_rank() const noexcept { return impl_->local_rank; }
int Runtime::local_size() const noexcept { return impl_->local_size; }
const std::string& Runtime::hostname() const noexcept { return impl_->hostname; }
const DeviceInfo& Runtime::device() const noexcept { return impl_->device; }
DeviceCommPath Runtime::device_comm_path() const noexcept { return impl_->path; }
const RuntimeOptions& Runtime::options() const noexcept { return impl_->options; }
std::uint64_t Runtime::device_memory_limit() const noexcept { return impl_->device_limit; }
std::uint64_t Runtime::host_memory_limit() const noexcept { return impl_->host_limit; }
const std::string& Runtime::spill_root() const noexcept { return impl_->spill_root; }
Tracer& Runtime::tracer() noexcept { return *impl_->tracer; }
void* Runtime::stream_handle() const noexcept { return impl_->stream; }
const ExecutionContext& Runtime::execution() const noexcept { return *impl_->execution; }
double Runtime::liveness_timeout() const noexcept { return impl_->liveness_timeout; }

void Runtime::finish(const std::vector<std::pair<std::string, std::uint64_t>>& extra_summary_columns) {
  if (!impl_->options.trace_file.empty()) impl_->tracer->write_chrome_trace(impl_->options.trace_file);
  if (impl_->options.verbose) impl_->tracer->print_summary(extra_summary_columns);
}

void detail::finalize_kokkos() noexcept {
  if (Kokkos::is_initialized()) Kokkos::finalize();
}

std::string Runtime::versions() const {
  char mpi[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
  int len = 0;
  MPI_Get_library_version(mpi, &len);
  std::string mpi_version(mpi, static_cast<std::size_t>(len));
  if (auto nl = mpi_version.find_first_of("\n,"); nl != std::string::npos) mpi_version.resize(nl);
  unsigned h5major = 0, h5minor = 0, h5release = 0;
  H5get_libversion(&h5major, &h5minor, &h5release);
  std::string out = "slab " + std::string(version_string) + "; MPI: " + mpi_version + "; HDF5 " +
                    std::to_string(h5major) + "." + std::to_string(h5minor) + "." + std::to_string(h5release) +
                    " (parallel); Kokkos " + std::to_string(KOKKOS_VERSION / 10000) + "." +
                    std::to_string(KOKKOS_VERSION / 100 % 100) + "." + std::to_string(KOKKOS_VERSION % 100);
  const std::string cuda = detail::cuda_versions();
  out += cuda.empty() ? "; CUDA: not built" : "; " + cuda;
  return out;
}

}  // namespace slab
