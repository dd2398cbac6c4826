// Bad input matrix, CSV (io/csv): ragged rows, a bad number, an unterminated quote, invalid UTF-8, a 100 MB
// field, an empty file, a header only, a missing file. Errors name "<file>:<line>:<col>:" (slab/io/csv.hpp)
// and are the same on every rank, wherever in the file (on whichever rank's byte range) the problem is.
#include <cstdint>
#include <fstream>
#include <string>

#include "../common/sanitizer.hpp"
#include "bad_input.hpp"
#include "io_test_util.hpp"
#include "slab/io/csv.hpp"

namespace {

using badinput::expect_error;
using badinput::expect_result;
namespace fr = slab::frame;

// A CSV file written by rank 0 in a scratch folder shared by every rank.
struct CsvFile {
  CsvFile(const slab::Comm& comm, const std::string& bytes) : dir(comm), path(dir.file("in.csv")) {
    if (comm.rank() == 0) std::ofstream(path, std::ios::binary) << bytes;
    comm.barrier();
  }
  iotest::ScratchDir dir;
  std::string path;
};

auto reader(slab::Engine& q, const std::string& path, slab::io::CsvOptions options = {}) {
  return [&q, path, options] { (void)slab::io::read_csv(q, path, options).len(); };
}

// A malformed file and the exact error after "<file>": each row is one test, BadInputCsv/Malformed.IsRefused/<name>.
struct MalformedCsv {
  const char* name;
  std::string text;
  std::string expected;     ///< the message after the file name
  bool x_is_int64 = false;  ///< read column x as int64 (otherwise inferred)
};

// 2000 rows; row 1990 (line 1991) is short: found by the last rank at 2-4 ranks, reported by all.
std::string short_row_near_the_end() {
  std::string text = "a,b\n";
  for (int i = 1; i <= 2000; ++i) text += i == 1990 ? "7\n" : std::to_string(i) + "," + std::to_string(2 * i) + "\n";
  return text;
}

// 2000 rows; the last (line 2001) holds INT64_MIN - 1: found by the last rank at 2-4 ranks, reported by all.
std::string integer_below_int64_near_the_end() {
  std::string text = "a,b\n";
  for (int i = 1; i < 2000; ++i) text += std::to_string(i) + "," + std::to_string(-i) + "\n";
  return text + "2000,-9223372036854775809\n";
}

const MalformedCsv kMalformed[] = {
    {"RaggedRowTooLong", "x,y\n1,2\n3,4,5\n", ":3:5: expected 2 fields, found 3"},
    {"RaggedRowTooShort", "x,y\n1,2\n3\n4,5\n", ":3:2: expected 2 fields, found 1"},
    {"RaggedRowNearTheEnd", short_row_near_the_end(), ":1991:2: expected 2 fields, found 1"},
    {"BadNumber", "x,y\n1,a\n2x,b\n", ":3:1: cannot parse '2x' as int64 (column 'x')", true},
    {"Int64OutOfRange", "x\n1\n99999999999999999999\n",
     ":3:1: integer '99999999999999999999' does not fit in int64 (column 'x'); read the column as string or "
     "float64 with CsvOptions::dtypes",
     true},
    // Inferred: an integer column with a value past INT64_MAX used to become float64, the value rounded.
    {"IntegerBeyondInt64Inferred", "id,x\n1,5\n2,9223372036854775808\n3,-9223372036854775809\n",
     ":3:3: integer '9223372036854775808' does not fit in int64 (column 'x'); read the column as string or "
     "float64 with CsvOptions::dtypes"},
    {"IntegerBelowInt64NearTheEnd", integer_below_int64_near_the_end(),
     ":2001:6: integer '-9223372036854775809' does not fit in int64 (column 'b'); read the column as string or "
     "float64 with CsvOptions::dtypes"},
    {"UnterminatedQuote", "x,y\n1,\"abc\n2,3\n", ":2:3: unterminated quoted field"},
    {"CharacterAfterClosingQuote", "x,y\n\"a\"b,2\n", ":2:4: unexpected character after a closing quote"},
    {"QuoteInsideUnquotedField", "x\nab\"c\n", ":2:3: quote inside an unquoted field"},
    // "ab" then a lone continuation byte: the bad byte is byte 5 of line 3.
    {"InvalidUtf8", "id,name\n1,ok\n2,ab\x80z\n", ":3:5: invalid UTF-8 (column 'name')"},
    // An overlong encoding of '/' (C0 AF) inside a quoted field.
    {"InvalidUtf8OverlongInQuotes", "name\n\"x\xc0\xaf\"\n", ":2:3: invalid UTF-8 (column 'name')"},
    {"InvalidUtf8InHeader", "x,\xff\n1,2\n", ":1:3: invalid UTF-8 in the header"},
    {"EmptyFile", "", ": empty file"},
    {"BlankLinesOnly", "\n\r\n\n", ": empty file"},
};

class Malformed : public ::testing::TestWithParam<MalformedCsv> {};

TEST_P(Malformed, IsRefused) {
  slab::testing::Engine e;
  const MalformedCsv& m = GetParam();
  CsvFile f(e.comm(), m.text);
  slab::io::CsvOptions o;
  if (m.x_is_int64) o.dtypes = {{"x", slab::ElementType::int64}};
  expect_error(e.comm(), "IoError", f.path + m.expected, reader(e, f.path, o));
}

INSTANTIATE_TEST_SUITE_P(BadInputCsv, Malformed, ::testing::ValuesIn(kMalformed),
                         [](const ::testing::TestParamInfo<MalformedCsv>& info) { return info.param.name; });

// The documented way to read integers beyond int64: as strings (exact) or as float64 (asked for, so rounded).
TEST(BadInputCsv, IntegerBeyondInt64AsStringOrFloat) {
  slab::testing::Engine e;
  CsvFile f(e.comm(), "x\n18446744073709551615\n-9223372036854775809\n7\n");
  expect_result(e.comm(), "string: the digits exactly; float64: the nearest doubles", [&] {
    slab::io::CsvOptions o;
    o.dtypes = {{"x", slab::ElementType::string}};
    const auto s = slab::io::read_csv(e, f.path, o).gather_all();
    ASSERT_EQ(s.nrows(), 3);
    EXPECT_EQ(s["x"].strings[0], "18446744073709551615");
    EXPECT_EQ(s["x"].strings[1], "-9223372036854775809");
    o.dtypes = {{"x", slab::ElementType::float64}};
    const auto d = slab::io::read_csv(e, f.path, o).gather_all();
    ASSERT_EQ(d.nrows(), 3);
    EXPECT_EQ(d["x"].floats[0], 18446744073709551615.0);
    EXPECT_EQ(d["x"].floats[2], 7.0);
  });
}

TEST(BadInputCsv, ValidUtf8IsKept) {
  slab::testing::Engine e;
  CsvFile f(e.comm(), "name\n\xc3\xa9t\xc3\xa9\n\xf0\x9f\x99\x82\n");
  expect_result(e.comm(), "multi-byte UTF-8 strings read unchanged", [&] {
    const auto t = slab::io::read_csv(e, f.path).gather_all();
    ASSERT_EQ(t.nrows(), 2);
    EXPECT_EQ(t["name"].strings[0], "\xc3\xa9t\xc3\xa9");
    EXPECT_EQ(t["name"].strings[1], "\xf0\x9f\x99\x82");
  });
}

// 100 MB of 'a' with a newline every MiB and one '"' (written "" in the file) at byte 500. Under ASan 8 MiB (a
// minute at -O0 otherwise): still far beyond a rank's byte range of the file at 2 ranks.
std::string hundred_mb_field() {
  std::string field((kAddressSanitizer ? 8u : 100u) << 20, 'a');
  for (std::size_t i = 1000; i < field.size(); i += 1u << 20) field[i] = '\n';
  field[500] = '"';
  return field;
}

TEST(BadInputCsv, HundredMegabyteField) {
  slab::testing::Engine e;
  // One quoted field of 100 MB: at 2-4 ranks the byte ranges of the later ranks start inside it.
  std::string text;
  if (e.comm().rank() == 0) {
    const std::string field = hundred_mb_field();
    text = "id,text\n1,\"" + field.substr(0, 500) + "\"" + field.substr(500) + "\"\n2,short\n";
  }
  CsvFile f(e.comm(), text);
  text = {};
  expect_result(e.comm(), "read exactly (2 rows, the field's 100 MB intact)", [&] {
    const auto frame = slab::io::read_csv(e, f.path);
    EXPECT_EQ(frame.len(), 2);
    const auto t = frame.local_table();
    for (std::int64_t r = 0; r < t.nrows(); ++r) {
      if (t["id"].ints[r] == 1) EXPECT_TRUE(t["text"].strings[r] == hundred_mb_field()) << "the field differs";
      if (t["id"].ints[r] == 2) EXPECT_EQ(t["text"].strings[r], "short");
    }
  });
}

TEST(BadInputCsv, HeaderOnly) {
  slab::testing::Engine e;
  CsvFile f(e.comm(), "x,y,z\n");
  expect_result(e.comm(), "0 rows, columns x y z (float64)", [&] {
    const auto frame = slab::io::read_csv(e, f.path);
    EXPECT_EQ(frame.len(), 0);
    EXPECT_EQ(frame.columns(), (std::vector<std::string>{"x", "y", "z"}));
  });
}

TEST(BadInputCsv, MissingFile) {
  slab::testing::Engine e;
  iotest::ScratchDir dir(e.comm());
  const std::string path = dir.file("nope.csv");
  expect_error(e.comm(), "IoError", path + ": cannot open: No such file or directory", reader(e, path));
}

TEST(BadInputCsv, DirectoryInsteadOfFile) {
  slab::testing::Engine e;
  iotest::ScratchDir dir(e.comm());
  expect_error(e.comm(), "IoError", dir.path + ": cannot open: not a regular file", reader(e, dir.path));
}

TEST(BadInputCsv, RanksWithNoRows) {
  slab::testing::Engine e;
  CsvFile f(e.comm(), "x\n1\n");
  // The row belongs to the rank whose byte range its record starts in; every other rank has none.
  expect_result(e.comm(), "1 row on one rank, none elsewhere", [&] {
    const auto frame = slab::io::read_csv(e, f.path);
    EXPECT_EQ(frame.len(), 1);
    const std::int64_t mine = frame.local_len();
    EXPECT_EQ(e.comm().allreduce(mine > 0 ? 1 : 0, slab::ReduceOp::sum), 1);
  });
}

}  // namespace
