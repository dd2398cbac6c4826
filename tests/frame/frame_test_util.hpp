#pragma once
#include <gtest/gtest.h>
#include <mpi.h>

#include "slab/comm/comm.hpp"
#include "slab/frame/frame.hpp"
#include "slab/memory/memory_manager.hpp"
#include "slab/task/task_queue.hpp"
#include "slab/trace/tracer.hpp"
#include "test_engine.hpp"

namespace frame_test {

using Engine = slab::testing::Engine;

}  // namespace frame_test
