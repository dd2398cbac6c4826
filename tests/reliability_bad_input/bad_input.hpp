#pragma once
// The bad input matrix's two checks: a case either fails with one exact, clear error (the same kind and text
// on every rank) or gives the documented result. Each records one line in bad_input.jsonl on rank 0
// (reliability_record.hpp), so docs/RELIABILITY.md lists exactly the cases that ran and how they ended.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "reliability_record.hpp"
#include "slab/comm/comm.hpp"
#include "slab/core/error.hpp"
#include "slab/memory/checksum.hpp"

namespace badinput {

inline std::string case_name() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return std::string(info->test_suite_name()) + "." + info->name();
}

// Whether every rank holds the same text (checksums compared).
inline bool same_on_every_rank(const slab::Comm& comm, const std::string& text) {
  const std::uint64_t h = slab::checksum64(text.data(), text.size());
  return comm.allreduce(h, slab::ReduceOp::min) == comm.allreduce(h, slab::ReduceOp::max);
}

/// `fn` must throw a slab::Error of kind `kind` whose message contains `expected` (which names the input and
/// the problem), the same message on every rank. Collective.
inline void expect_error(const slab::Comm& comm, const std::string& kind, const std::string& expected,
                         const std::function<void()>& fn) {
  std::string message, got = "no error";
  try {
    fn();
  } catch (const slab::Error& e) {
    message = e.message(), got = e.kind();
  } catch (const std::exception& e) {
    message = e.what(), got = "std::exception";
  }
  const bool same = same_on_every_rank(comm, got + message);
  const bool ok = got == kind && message.find(expected) != std::string::npos && same;
  EXPECT_EQ(got, kind) << message;
  EXPECT_NE(message.find(expected), std::string::npos) << "expected '" << expected << "' in: " << message;
  EXPECT_TRUE(same) << "ranks got different errors; this one: " << got << ": " << message;
  if (comm.rank() == 0)
    slab::testing::record_reliability("bad_input", case_name(), kind + ": " + expected, ok, got + ": " + message,
                                      comm.size());
}

/// `fn` must return normally with the documented result, checked by the EXPECTs inside it (`expected`
/// describes that result). Collective.
inline void expect_result(const slab::Comm& comm, const std::string& expected, const std::function<void()>& fn) {
  const int before = ::testing::UnitTest::GetInstance()->current_test_info()->result()->total_part_count();
  std::string detail = "as documented";
  try {
    fn();
  } catch (const std::exception& e) {
    detail = std::string("threw: ") + e.what();
    ADD_FAILURE() << detail;
  }
  const auto* result = ::testing::UnitTest::GetInstance()->current_test_info()->result();
  int failed = 0;
  for (int i = before; i < result->total_part_count(); ++i) failed |= result->GetTestPartResult(i).failed() ? 1 : 0;
  failed = comm.allreduce(failed, slab::ReduceOp::max);
  if (comm.rank() == 0)
    slab::testing::record_reliability("bad_input", case_name(), expected, failed == 0,
                                      failed ? (detail == "as documented" ? "result differs" : detail) : detail,
                                      comm.size());
}

}  // namespace badinput
