// read_csv: inferred and given types, quoted fields with "" and embedded newlines/delimiters, null markers,
// CRLF, rank boundaries inside quoted fields, and every malformed case with its exact message on every rank.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "../io/io_test_util.hpp"
#include "slab/core/time.hpp"
#include "slab/io/csv.hpp"

namespace sf = slab::frame;

namespace {

void write_file(const slab::Comm& comm, const std::string& path, const std::string& text) {
  if (comm.rank() == 0) {
    std::ofstream f(path, std::ios::binary);
    f << text;
  }
  comm.barrier();
}

// The IoError message read_csv throws (empty when it does not throw).
std::string error_of(iotest::Engine& e, const std::string& path, const slab::io::CsvOptions& opt = {}) {
  try {
    (void)slab::io::read_csv(e, path, opt).gather_all();
  } catch (const slab::IoError& ex) {
    return ex.message();
  }
  return "";
}

}  // namespace

TEST(FrameCsv, InfersTypesQuotesAndNulls) {
  iotest::Engine e;
  iotest::ScratchDir dir(e.comm());
  const std::string path = dir.file("a.csv");
  write_file(e.comm(), path,
             "i,f,b,s,t,n\n"
             "1,1.5,true,plain,2000-01-01,NA\n"
             "-2,NaN,False,\"with, comma\",2000-01-01T00:00:01.5,\n"
             "\r\n"
             "+3,2e3,TRUE,\"say \"\"hi\"\"\nnext line\",2000-01-02 03:04:05Z,null\r\n"
             "NA,-inf,,,,\n"
             "5,7,false,\"\",1970-01-01T01:00:00+01:00,\n");
  sf::LocalTable t = slab::io::read_csv(e, path).gather_all();
  ASSERT_EQ(t.names(), (std::vector<std::string>{"i", "f", "b", "s", "t", "n"}));
  EXPECT_EQ(t["i"].type, slab::ElementType::int64);
  EXPECT_EQ(t["f"].type, slab::ElementType::float64);
  EXPECT_EQ(t["b"].type, slab::ElementType::boolean);
  EXPECT_EQ(t["s"].type, slab::ElementType::string);
  EXPECT_EQ(t["t"].type, slab::ElementType::timestamp);
  EXPECT_EQ(t["n"].type, slab::ElementType::float64);
  ASSERT_EQ(t.nrows(), 5);
  EXPECT_EQ(t["i"].ints[0], 1);
  EXPECT_EQ(t["i"].ints[2], 3);
  EXPECT_TRUE(t["i"].is_null(3));
  EXPECT_TRUE(std::isnan(t["f"].floats[1]));
  EXPECT_EQ(t["f"].floats[2], 2000.0);
  EXPECT_TRUE(std::isinf(t["f"].floats[3]));
  EXPECT_EQ(t["b"].bools[1], 0);
  EXPECT_TRUE(t["b"].is_null(3));
  EXPECT_EQ(t["s"].strings[1], "with, comma");
  EXPECT_EQ(t["s"].strings[2], "say \"hi\"\nnext line");
  EXPECT_TRUE(t["s"].is_null(3));
  EXPECT_TRUE(t["s"].is_null(4));  // "" is a null marker, quoted or not
  EXPECT_EQ(t["t"].ints[0], 946684800LL * 1000000000LL);
  EXPECT_EQ(t["t"].ints[1], 946684801LL * 1000000000LL + 500000000LL);
  EXPECT_EQ(t["t"].ints[2], (946684800LL + 86400 + 3 * 3600 + 4 * 60 + 5) * 1000000000LL);
  EXPECT_EQ(t["t"].ints[4], 0);
  EXPECT_TRUE(t["n"].is_null(0));
}

TEST(FrameCsv, RankBoundariesInsideQuotedFieldsAndGivenTypes) {
  iotest::Engine e;
  iotest::ScratchDir dir(e.comm());
  const std::string path = dir.file("b.csv");
  std::string text = "id,text,v\n";
  const int n = 400;
  for (int i = 0; i < n; ++i) {
    text += std::to_string(i) + ",\"line one of " + std::to_string(i) + "\n\"\"quoted\"\", and\nline three\"," +
            (i % 5 == 0 ? "" : std::to_string(i)) + "\n";
  }
  write_file(e.comm(), path, text);
  slab::io::CsvOptions opt;
  opt.dtypes = {{"v", slab::ElementType::float64}, {"id", slab::ElementType::int64}};
  opt.rows_per_partition = 7;
  sf::Frame f = slab::io::read_csv(e, path, opt);
  sf::LocalTable t = f.gather_all();
  ASSERT_EQ(t.nrows(), n);
  EXPECT_EQ(t["v"].type, slab::ElementType::float64);
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(t["id"].ints[i], i);
    EXPECT_EQ(t["text"].strings[i], "line one of " + std::to_string(i) + "\n\"quoted\", and\nline three");
    if (i % 5 == 0)
      EXPECT_TRUE(std::isnan(t["v"].floats[i]));
    else
      EXPECT_EQ(t["v"].floats[i], i);
  }
  // Null markers are configurable.
  slab::io::CsvOptions none;
  none.null_values = {};
  none.dtypes = {{"v", slab::ElementType::string}};
  sf::LocalTable u = slab::io::read_csv(e, path, none).gather_all();
  EXPECT_FALSE(u["v"].is_null(0));
  EXPECT_EQ(u["v"].strings[0], "");
}

TEST(FrameCsv, MalformedFilesGiveTheSameMessageOnEveryRank) {
  iotest::Engine e;
  iotest::ScratchDir dir(e.comm());
  struct Case {
    std::string name, text, message;
    slab::io::CsvOptions opt = {};
  };
  std::string many = "a,b\n";
  for (int i = 0; i < 300; ++i) many += std::to_string(i) + "," + std::to_string(i) + "\n";
  std::vector<Case> cases = {
      {"empty.csv", "", ": empty file"},
      {"blank.csv", "\n\n", ": empty file"},
      {"short.csv", "a,b,c\n1,2,3\n4,5\n", ":3:4: expected 3 fields, found 2"},
      {"long.csv", many + "1,2,3\n", ":302:5: expected 2 fields, found 3"},
      {"unterminated.csv", "a,b\n1,2\n3,\"never closed\n4,5\n", ":3:3: unterminated quoted field"},
      {"afterquote.csv", "a,b\n1,\"x\"y\n", ":2:6: unexpected character after a closing quote"},
      {"midquote.csv", "a,b\n1,x\"y\n", ":2:4: quote inside an unquoted field"},
  };
  cases.push_back({"badint.csv", many + "7,x1\n", ":302:3: cannot parse 'x1' as int64 (column 'b')", {}});
  cases.back().opt.dtypes = {{"b", slab::ElementType::int64}};
  cases.push_back({"givenfloat.csv", "a,b\n1,2\n3,abc\n", ":3:3: cannot parse 'abc' as float64 (column 'b')", {}});
  cases.back().opt.dtypes = {{"b", slab::ElementType::float64}};
  for (const auto& c : cases) {
    const std::string path = dir.file(c.name);
    write_file(e.comm(), path, c.text);
    EXPECT_EQ(error_of(e, path, c.opt), path + c.message) << c.name;
  }
  EXPECT_EQ(error_of(e, dir.file("missing.csv")).rfind(dir.file("missing.csv") + ": cannot open", 0), 0u);
  // The earliest problem wins, whatever the rank count.
  const std::string path = dir.file("two.csv");
  write_file(e.comm(), path, many + "1\n" + many.substr(4) + "1,2,3\n");
  EXPECT_EQ(error_of(e, path), path + ":302:2: expected 2 fields, found 1");
}

TEST(FrameCsv, ScalarParsers) {
  std::int64_t ns = 0;
  EXPECT_TRUE(slab::parse_timestamp("2000-02-29T12:00:00.000000001", ns));
  EXPECT_EQ(ns, (951782400LL + 12 * 3600) * 1000000000LL + 1);
  EXPECT_FALSE(slab::parse_timestamp("1999-02-29", ns));
  EXPECT_FALSE(slab::parse_timestamp("2000-01-01T", ns));
  std::int64_t v;
  EXPECT_FALSE(slab::io::parse_int64("1.0", v));
  EXPECT_FALSE(slab::io::parse_int64("99999999999999999999", v));
  double d;
  EXPECT_TRUE(slab::io::parse_float64("-1.25e-3", d));
  EXPECT_EQ(d, -1.25e-3);
  EXPECT_FALSE(slab::io::parse_float64("1,5", d));
}

// pandas' header rules, the expected names from pandas 3.1.1 (`list(pd.read_csv(path).columns)` for each file):
// a UTF-8 byte-order mark is not part of the first name; duplicates become x.1, x.2 (skipping names the header
// has); empty names become "Unnamed: i", renamed after the given ones.
TEST(FrameCsv, HeaderFollowsPandas) {
  iotest::Engine e;
  iotest::ScratchDir dir(e.comm());
  struct Case {
    std::string header;
    std::vector<std::string> names;
  };
  const std::vector<Case> cases = {
      {"\xEF\xBB\xBFid,v", {"id", "v"}},
      {"\xEF\xBB\xBFx,x,x.1,y,x,,", {"x", "x.2", "x.1", "y", "x.3", "Unnamed: 5", "Unnamed: 6"}},
      {"a,,a", {"a", "Unnamed: 1", "a.1"}},
      {"a,,Unnamed: 1", {"a", "Unnamed: 1.1", "Unnamed: 1"}},
      {"x,x,x,x.1,x.2", {"x", "x.3", "x.4", "x.1", "x.2"}},
      {"x.1,x,x", {"x.1", "x", "x.2"}},
      {"b,b.1,b,b", {"b", "b.1", "b.2", "b.3"}},
  };
  int k = 0;
  for (const auto& c : cases) {
    const std::string path = dir.file("h" + std::to_string(k++) + ".csv");
    const std::size_t n = c.names.size();
    std::string text = c.header + "\n";
    for (int row = 0; row < 50; ++row) {  // enough rows for every rank to hold some
      for (std::size_t j = 0; j < n; ++j) text += (j ? "," : "") + std::to_string(row * 10 + static_cast<int>(j));
      text += "\n";
    }
    write_file(e.comm(), path, text);
    const sf::LocalTable t = slab::io::read_csv(e, path).gather_all();
    EXPECT_EQ(t.names(), c.names) << c.header;
    EXPECT_EQ(t.nrows(), 50) << c.header;
    if (t.names() != c.names || t.nrows() != 50) continue;
    EXPECT_EQ(t.columns[0].type, slab::ElementType::int64) << c.header;  // the BOM is not in the first field
    for (std::size_t j = 0; j < n; ++j) EXPECT_EQ(t.columns[j].ints[49], 490 + static_cast<std::int64_t>(j));
  }
  // A BOM before the first record of a header-less file is skipped too.
  const std::string path = dir.file("nohead.csv");
  write_file(e.comm(), path,
             "\xEF\xBB\xBF"
             "5,6\n7,8\n");
  slab::io::CsvOptions o;
  o.header = false;
  o.names = {"a", "b"};
  const sf::LocalTable t = slab::io::read_csv(e, path, o).gather_all();
  EXPECT_EQ(t["a"].type, slab::ElementType::int64);
  if (t["a"].type == slab::ElementType::int64 && t.nrows() == 2) EXPECT_EQ(t["a"].ints[0], 5);
}
