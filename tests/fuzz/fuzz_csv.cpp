// libFuzzer target: read_csv on arbitrary bytes (one rank). Any input must give a frame or a slab::Error
// (IoError naming file:line:col, InvalidArgument); a crash, a sanitizer report or another exception is a bug.
#include <cstddef>
#include <cstdint>

#include "fuzz_engine.hpp"
#include "slab/core/error.hpp"
#include "slab/io/csv.hpp"

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  slab::fuzz::init(argc, argv, "input.csv");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > (1u << 20) || !slab::fuzz::write_input(data, size)) return 0;
  slab::io::CsvOptions options;
  // The first byte picks a few options so that they are fuzzed too (the file is the whole input).
  if (size > 0 && (data[0] & 1)) options.delimiter = ';';
  if (size > 0 && (data[0] & 2)) options.rows_per_partition = 2;
  try {
    const auto frame = slab::io::read_csv(*slab::fuzz::env().engine, slab::fuzz::env().path, options);
    const auto table = frame.gather();
    if (table.nrows() != frame.len()) __builtin_trap();  // rows lost or invented
  } catch (const slab::Error&) {
    // A clear refusal of a bad file: fine.
  }
  return 0;
}
