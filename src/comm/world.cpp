#include "slab/comm/world.hpp"

#include "comm/cuda/nccl_collectives.hpp"
#include "slab/core/error.hpp"

namespace slab {

Comm make_world_comm(Runtime& runtime) {
  Comm world(runtime.world(), &runtime.tracer());
  switch (runtime.device_comm_path()) {
    case DeviceCommPath::host:
      break;
    case DeviceCommPath::host_staging:
      world.set_device_path(&runtime.execution(), nullptr, true);
      break;
    case DeviceCommPath::nccl: {
      void* nccl = nullptr;
      std::exception_ptr error;
      try {
        nccl = detail::nccl_comm_create(runtime.world(), runtime.device().id);
      } catch (...) {
        error = std::current_exception();
      }
      world.agree(error);
      world.set_device_path(&runtime.execution(), nccl, false);
      break;
    }
  }
  return world;
}

}  // namespace slab
