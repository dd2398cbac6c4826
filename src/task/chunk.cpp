#include "slab/task/chunk.hpp"

#include "task/task_node.hpp"

namespace slab {

bool Chunk::ready() const noexcept { return node_ && node_->done; }
BufferPtr Chunk::buffer() const noexcept { return node_ ? node_->output : nullptr; }
const char* Chunk::name() const noexcept { return node_ ? node_->name.c_str() : ""; }

}  // namespace slab
