#pragma once
/// @file csv.hpp
/// @brief CSV files, read and written in parallel. read_csv: by byte ranges (RFC 4180: header row, quoted fields
/// with "" escapes, newlines inside quotes, LF or CRLF line ends). write_csv (below): pandas' to_csv(index=False)
/// bytes, every rank writing its own rows into the one file.
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

/// Options of write_csv, pandas' to_csv keywords of the same meaning.
struct CsvWriteOptions {
  /// The field delimiter (pandas' sep). Not '"', '\n' or '\r'.
  char sep = ',';
  /// Write the column names as the first line.
  bool header = true;
  /// The text of a null: NaN in float64, a masked value, a null string, NaT (pandas' na_rep). Quoted like any
  /// field when it needs to be.
  std::string na_rep;
  /// printf-style format of float64 values (pandas' float_format "%.3f": one conversion of e, E, f, F, g or G
  /// with optional flags, width and precision, other text and "%%" allowed); empty: the shortest text that
  /// reads back to the same double, as Python's repr (0.1, 1e+20, 0.3333333333333333, -0.0, inf, 1e-05).
  std::string float_format;
  /// The end of every line, the header's included (pandas' lineterminator). Not empty.
  std::string line_terminator = "\n";
};

/**
 * @brief Write `frame` to the CSV file `path` as pandas' `df.to_csv(path, index=False, sep=..., na_rep=...,
 * float_format=..., lineterminator=...)` writes it (slab frames have no index), byte for byte:
 *   - int64 as integers; bool as True/False; float64 as above; strings as they are;
 *   - timestamps "YYYY-MM-DD HH:MM:SS" with ".fff", ".ffffff" or ".fffffffff" when a value of the column needs
 *     milliseconds, microseconds or nanoseconds, or "YYYY-MM-DD" alone when every value is at midnight. pandas
 *     decides this per chunk of 100000 / ncols rows (to_csv's chunksize), and so does write_csv, in global row
 *     numbers, so that a long column can change format between chunks exactly where pandas' does;
 *   - QUOTE_MINIMAL: a field (names and na_rep included) containing sep, '"', '\r', '\n' or a character of
 *     line_terminator is quoted, its quotes doubled; an empty field that is a row's only field is written "".
 *     (CPython >= 3.11.9 / 3.12.3 quotes a bare '\r' this way, gh-67044; older ones write it bare, and
 *     pandas' read_csv then splits the row there.)
 * read_csv reads the file back to the same frame where its type inference can tell (an empty string reads as
 * null, as in pandas; a string column of numbers reads as numbers).
 *
 * Parallel and streaming: each rank formats its own rows, partition by partition, the byte counts are
 * allgathered so that each rank knows where its text starts, and every rank writes its text with pwrite at its
 * offset into one temporary file ".<name>.slab-tmp" in the target's directory, which rank 0 creates (truncating
 * a stale one) and, when every rank has written and closed it, renames over `path`. A rank holds one
 * partition's text at a time, plus the texts of earlier partitions while they fit MemoryManager::budget(4)
 * (reserved as "csv text"), which it writes instead of formatting those partitions again. No rank gathers
 * another's rows. A frame of zero rows gives the header alone; a rank with no rows writes nothing.
 * Collective (runs the graph).
 * @throws InvalidArgument (every rank) for a sep of '"', '\n' or '\r', an empty line_terminator or a
 * float_format that is not one float conversion; IoError (every rank, the same message) "<path>: cannot
 * create: <reason>", "<path>: is a directory", "<path>: write failed: <reason>", "<path>: cannot move into
 * place: <reason>"; `path` is then untouched and the temporary removed.
 */
void write_csv(const frame::Frame& frame, const std::string& path, const CsvWriteOptions& options = {});

/// Parse an int64 ("-12", "+3"). False when malformed or out of range.
bool parse_int64(std::string_view text, std::int64_t& value) noexcept;
/// Parse a float64 ("1.5", "-2e3", "inf", "nan"). False when malformed.
bool parse_float64(std::string_view text, double& value) noexcept;
/// Parse a bool (true/false, True/False, TRUE/FALSE). False when malformed.
bool parse_bool(std::string_view text, bool& value) noexcept;

}  // namespace slab::io
