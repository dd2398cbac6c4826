#pragma once
/// @file csv.hpp
/// @brief read_csv: parallel CSV reading by byte ranges (RFC 4180: header row, quoted fields with "" escapes,
/// newlines inside quotes, LF or CRLF line ends).
///
/// How ranks find their records: rank r takes bytes [r F / p, (r+1) F / p) of the file (F bytes) and counts the
/// quote characters and newlines in them; an allgather of the counts gives every rank the quote parity (inside
/// or outside a quoted field) and the line number at the start of its range, the synchronisation point being
/// the start of the file. Rank r then scans its range, tracking the parity, for the first newline outside
/// quotes: its records start right after it (rank 0's at byte 0) and run up to the next rank's first record
/// start (read past the end of the range when a record straddles it). So the file is read about twice, in
/// parallel, and nothing is scanned serially.
///
/// Errors: every rank throws the same IoError, the first problem in file order, named "<file>:<line>:<col>:"
/// (1-based physical line and byte column of the field, or of the opening quote):
///   "<file>: cannot open: <reason>", "<file>: empty file",
///   "<file>:<L>:<C>: unterminated quoted field",
///   "<file>:<L>:<C>: unexpected character after a closing quote",
///   "<file>:<L>:<C>: quote inside an unquoted field",
///   "<file>:<L>:<C>: expected <n> fields, found <m>" (C: the first extra field, or the end of a short row),
///   "<file>:<L>:<C>: cannot parse '<text>' as <dtype> (column '<name>')",
///   "<file>:<L>:<C>: integer '<text>' does not fit in int64 (column '<name>'); read the column as string or
///   float64 with CsvOptions::dtypes" (an integer column, inferred or asked for, with a value beyond the int64
///   range: slab has no uint64 column, and a float64 column would round such values silently; pandas reads
///   them as uint64, or as str beyond uint64),
///   "<file>:<L>:<C>: invalid UTF-8 (column '<name>')" (a string field; C: the bad byte),
///   "<file>:<L>:<C>: invalid UTF-8 in the header".
/// A file of a header only gives a frame with those columns (float64: no values seen) and no rows.
/// Blank lines are skipped (pandas skip_blank_lines). No row is ever dropped silently.
/// As in pandas: a UTF-8 byte-order mark at the start of the file is skipped (not part of the first name;
/// columns in messages still count its 3 bytes); an empty header name becomes "Unnamed: <i>"; duplicate
/// names are renamed as pandas' read_csv does: the second "x" becomes "x.1", the third "x.2", skipping
/// names the header already has ("x,x,x.1" gives x, x.2, x.1), unnamed columns last.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "slab/frame/frame.hpp"

namespace slab::io {

struct CsvOptions {
  char delimiter = ',';
  /// The first record holds the column names; otherwise `names` must be given.
  bool header = true;
  /// Column names when header == false (or to rename the header's columns; must match their count).
  std::vector<std::string> names;
  /// Field texts read as null (compared after unquoting): pandas' defaults in spirit.
  std::vector<std::string> null_values = {"", "NA", "NaN", "null"};
  /// Types of some columns by name; the others are inferred: bool (true/false, True/False, TRUE/FALSE), then
  /// int64, float64, timestamp (ISO-8601 "YYYY-MM-DD[( |T)HH:MM[:SS[.f...]]][Z|+HH:MM]"), else string; a column
  /// of nulls only is float64.
  std::map<std::string, ElementType> dtypes;
  /// Partitions per rank of this many rows (<= 0: one partition per rank).
  std::int64_t rows_per_partition = 0;
};

/**
 * @brief Read a CSV file into a frame (rank r holds the records that start in its byte range; global row order
 * = file order). Collective. @throws IoError (every rank, the same message) as listed above;
 * InvalidArgument for inconsistent options (names count, a dtypes entry naming no column).
 */
[[nodiscard]] frame::Frame read_csv(Engine& engine, const std::string& path, const CsvOptions& options = {});

/// Parse an int64 ("-12", "+3"). False when malformed or out of range.
bool parse_int64(std::string_view text, std::int64_t& value) noexcept;
/// Parse a float64 ("1.5", "-2e3", "inf", "nan"). False when malformed.
bool parse_float64(std::string_view text, double& value) noexcept;
/// Parse a bool (true/false, True/False, TRUE/FALSE). False when malformed.
bool parse_bool(std::string_view text, bool& value) noexcept;

}  // namespace slab::io
