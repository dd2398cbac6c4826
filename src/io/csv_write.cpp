// write_csv: pandas' to_csv(index=False) bytes, written in parallel into one file. See slab/io/csv.hpp.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>

#include "core/floor_divide.hpp"
#include "slab/comm/comm.hpp"
#include "slab/core/error.hpp"
#include "slab/core/time.hpp"
#include "slab/io/csv.hpp"
#include "slab/memory/memory_manager.hpp"

namespace slab::io {

using namespace slab::frame;

namespace {

// pandas' to_csv formats its rows in chunks of this many cells (_DEFAULT_CHUNKSIZE_CELLS), chunksize =
// 100000 // ncols rows; a timestamp column's format is chosen per chunk.
constexpr std::int64_t kPandasChunkCells = 100000;

// Python's repr of a double (float_repr_style 'short'): the shortest digits that read back to v, in fixed
// notation when the decimal point falls within [-4, 16) digits of the first, else d.ddde+XX.
void append_repr(std::string& out, double v) {
  if (std::isinf(v)) {
    out += v < 0 ? "-inf" : "inf";
    return;
  }
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  (void)ec;  // 64 bytes hold every double
  const char* p = buf;
  if (*p == '-') out += '-', ++p;
  char digits[32];
  int nd = 0;
  for (; p < end && *p != 'e'; ++p)
    if (*p != '.') digits[nd++] = *p;
  int exp10 = 0;
  std::from_chars(p + 1 + (p[1] == '+'), end, exp10);
  const int decpt = exp10 + 1;  // digits[0] is the units digit when decpt == 1
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) {
      out += "0.";
      out.append(static_cast<std::size_t>(-decpt), '0');
      out.append(digits, static_cast<std::size_t>(nd));
    } else if (decpt >= nd) {
      out.append(digits, static_cast<std::size_t>(nd));
      out.append(static_cast<std::size_t>(decpt - nd), '0');
      out += ".0";
    } else {
      out.append(digits, static_cast<std::size_t>(decpt));
      out += '.';
      out.append(digits + decpt, static_cast<std::size_t>(nd - decpt));
    }
    return;
  }
  out += digits[0];
  if (nd > 1) {
    out += '.';
    out.append(digits + 1, static_cast<std::size_t>(nd - 1));
  }
  out += exp10 < 0 ? "e-" : "e+";
  const int a = exp10 < 0 ? -exp10 : exp10;
  if (a < 10) out += '0';
  out += std::to_string(a);
}

// Whether `f` is a printf format of one double: text, "%%", and one %[flags][width][.precision](e|E|f|F|g|G).
bool valid_float_format(const std::string& f) {
  int conversions = 0;
  for (std::size_t i = 0; i < f.size(); ++i) {
    if (f[i] != '%') continue;
    if (++i < f.size() && f[i] == '%') continue;
    while (i < f.size() && std::strchr("-+ #0", f[i]) != nullptr) ++i;
    while (i < f.size() && f[i] >= '0' && f[i] <= '9') ++i;
    if (i < f.size() && f[i] == '.') {
      ++i;
      while (i < f.size() && f[i] >= '0' && f[i] <= '9') ++i;
    }
    if (i >= f.size() || std::strchr("eEfFgG", f[i]) == nullptr) return false;
    ++conversions;
  }
  return conversions == 1;
}

void append_int(std::string& out, std::int64_t v) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  (void)ec;
  out.append(buf, end);
}

void append_digits(std::string& out, std::int64_t v, int width) {
  char buf[24];
  for (int i = width - 1; i >= 0; --i) buf[i] = static_cast<char>('0' + v % 10), v /= 10;
  out.append(buf, static_cast<std::size_t>(width));
}

// How much of a timestamp pandas prints: 0 the date alone (midnight), 1 seconds, 2 ms, 3 us, 4 ns; a chunk prints
// all its values at the largest level of any.
std::uint8_t timestamp_level(std::int64_t ns) {
  const std::int64_t day = ns - slab::detail::int_floor_divide(ns, kNanosPerDay) * kNanosPerDay;
  if (day == 0) return 0;
  if (day % kNanosPerSecond == 0) return 1;
  if (day % 1'000'000 == 0) return 2;
  if (day % 1'000 == 0) return 3;
  return 4;
}

void append_timestamp(std::string& out, std::int64_t ns, std::uint8_t level) {
  const std::int64_t days = slab::detail::int_floor_divide(ns, kNanosPerDay);
  const std::int64_t in_day = ns - days * kNanosPerDay;
  std::int64_t y;
  unsigned m, d;
  civil_from_days(days, y, m, d);
  append_digits(out, y, 4);  // int64 nanoseconds hold the years 1677-2262
  out += '-';
  append_digits(out, m, 2);
  out += '-';
  append_digits(out, d, 2);
  if (level == 0) return;
  const std::int64_t secs = in_day / kNanosPerSecond, frac = in_day % kNanosPerSecond;
  out += ' ';
  append_digits(out, secs / 3600, 2);
  out += ':';
  append_digits(out, secs / 60 % 60, 2);
  out += ':';
  append_digits(out, secs % 60, 2);
  if (level == 2) out += '.', append_digits(out, frac / 1'000'000, 3);
  if (level == 3) out += '.', append_digits(out, frac / 1'000, 6);
  if (level == 4) out += '.', append_digits(out, frac, 9);
}

// Formats rows as CSV text: QUOTE_MINIMAL quoting, pandas' value texts.
class RowFormatter {
 public:
  RowFormatter(const Schema& schema, const CsvWriteOptions& opt) : schema_(schema), opt_(opt) {
    special_.fill(0);
    special_[static_cast<unsigned char>(opt.sep)] = 1;
    special_[static_cast<unsigned char>('"')] = 1;
    special_[static_cast<unsigned char>('\n')] = 1;
    special_[static_cast<unsigned char>('\r')] = 1;
    for (char c : opt.line_terminator) special_[static_cast<unsigned char>(c)] = 1;
    dict_quote_.resize(schema.size());
    for (std::size_t c = 0; c < schema.size(); ++c)
      if (schema.type(c) == ElementType::string) dict_quote_[c].assign(schema.dictionary(c)->size(), 0);
    na_ = field_text(opt.na_rep);
  }

  /// The header line.
  void header(std::string& out) {
    for (std::size_t c = 0; c < schema_.size(); ++c) {
      if (c) out += opt_.sep;
      append_field(out, schema_.name(c));
    }
    end_line(out);
  }

  /// Rows of `b`; row i's timestamps at levels[i's chunk][timestamp column] (levels_of(i) gives the row's levels).
  template <class Levels>
  void rows(const BatchView& b, std::string& out, const Levels& levels_of) {
    const std::size_t nc = b.ncols();
    const auto n = static_cast<std::size_t>(b.nrows());
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint8_t* levels = levels_of(i);
      const std::size_t line_start = out.size();
      std::size_t ts = 0;
      for (std::size_t c = 0; c < nc; ++c) {
        if (c) out += opt_.sep;
        const std::size_t at = out.size();
        const ElementType t = b.type(c);
        const std::uint8_t* valid = b.valid(c);
        bool null = valid != nullptr && valid[i] == 0;
        if (t == ElementType::float64) null = null || std::isnan(b.column<double>(c)[i]);
        if (t == ElementType::string) null = null || b.column<std::int32_t>(c)[i] < 0;
        if (null) {
          out += na_;  // quoted already where it needs to be
          ts += t == ElementType::timestamp;
          continue;
        }
        switch (t) {
          case ElementType::int64:
            append_int(out, b.column<std::int64_t>(c)[i]);
            break;
          case ElementType::timestamp:
            append_timestamp(out, b.column<std::int64_t>(c)[i], levels[ts++]);
            break;
          case ElementType::float64:
            append_float(out, b.column<double>(c)[i]);
            break;
          case ElementType::boolean:
            out += b.column<std::uint8_t>(c)[i] ? "True" : "False";
            break;
          case ElementType::string: {
            const auto code = static_cast<std::size_t>(b.column<std::int32_t>(c)[i]);
            const std::string& text = (*schema_.dictionary(c))[code];
            std::uint8_t& q = dict_quote_[c][code];
            if (q == 0) q = needs_quote(text) ? 2 : 1;
            if (q == 2)
              append_quoted(out, text);
            else
              out += text;
            continue;
          }
          default:  // not a column type: a Schema holds none
            break;
        }
        // A value's text can hold a special character too (sep '.', a float_format with a comma): quote it then.
        if (needs_quote(std::string_view(out).substr(at))) {
          const std::string text = out.substr(at);
          out.resize(at);
          append_quoted(out, text);
        }
      }
      // Python's csv writer quotes a row's only field when it is empty, so that the row is not a blank line.
      if (nc == 1 && out.size() == line_start) out += "\"\"";
      end_line(out);
    }
  }

 private:
  [[nodiscard]] bool needs_quote(std::string_view s) const {
    for (char c : s)
      if (special_[static_cast<unsigned char>(c)]) return true;
    return false;
  }
  static void append_quoted(std::string& out, std::string_view s) {
    out += '"';
    for (char c : s) {
      if (c == '"') out += '"';
      out += c;
    }
    out += '"';
  }
  void append_field(std::string& out, std::string_view s) const {
    if (needs_quote(s))
      append_quoted(out, s);
    else
      out += s;
    if (schema_.size() == 1 && s.empty()) out += "\"\"";
  }
  // na_rep as a field's text (quoted when it holds a special character).
  [[nodiscard]] std::string field_text(std::string_view s) const {
    std::string out;
    if (needs_quote(s))
      append_quoted(out, s);
    else
      out = s;
    return out;
  }
  void append_float(std::string& out, double v) const {
    if (opt_.float_format.empty()) return append_repr(out, v);
    char buf[128];
    const int len = std::snprintf(buf, sizeof buf, opt_.float_format.c_str(), v);
    if (len >= 0 && static_cast<std::size_t>(len) < sizeof buf) {
      out.append(buf, static_cast<std::size_t>(len));
      return;
    }
    std::string big(static_cast<std::size_t>(std::max(len, 0)) + 1, '\0');
    std::snprintf(big.data(), big.size(), opt_.float_format.c_str(), v);
    big.pop_back();
    out += big;
  }
  void end_line(std::string& out) const { out += opt_.line_terminator; }

  const Schema& schema_;
  const CsvWriteOptions& opt_;
  std::array<std::uint8_t, 256> special_{};
  std::vector<std::vector<std::uint8_t>> dict_quote_;  // per string column and code: 0 unknown, 1 plain, 2 quoted
  std::string na_;
};

// Write all of `data` at `offset`; 0 or an errno.
int pwrite_all(int fd, const char* data, std::uint64_t n, std::uint64_t offset) {
  while (n > 0) {
    const ssize_t w = ::pwrite(fd, data, std::min<std::uint64_t>(n, 1u << 30), static_cast<off_t>(offset));
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return errno;
    if (w == 0) return EIO;
    data += w, n -= static_cast<std::uint64_t>(w), offset += static_cast<std::uint64_t>(w);
  }
  return 0;
}

std::string directory_of(const std::string& path) {
  const auto k = path.rfind('/');
  if (k == std::string::npos) return ".";
  return k == 0 ? "/" : path.substr(0, k);
}
std::string temporary_for(const std::string& path) {
  const auto k = path.rfind('/');
  const std::string dir = k == std::string::npos ? "" : path.substr(0, k + 1);
  return dir + "." + path.substr(k == std::string::npos ? 0 : k + 1) + ".slab-tmp";
}

}  // namespace

void write_csv(const Frame& frame, const std::string& path, const CsvWriteOptions& opt) {
  SLAB_EXPECTS(frame.valid(), InvalidArgument, "write_csv: the frame is empty (default-constructed)");
  SLAB_EXPECTS(opt.sep != '"' && opt.sep != '\n' && opt.sep != '\r', InvalidArgument,
               "write_csv: sep must not be '\"', '\\n' or '\\r'");
  SLAB_EXPECTS(!opt.line_terminator.empty(), InvalidArgument, "write_csv: line_terminator must not be empty");
  SLAB_EXPECTS(opt.float_format.empty() || valid_float_format(opt.float_format), InvalidArgument,
               "write_csv: float_format '" + opt.float_format +
                   "' is not a format of one float (e.g. %.3f, %g, %.6e: one conversion of e, E, f, F, g or G)");
  SLAB_EXPECTS(!path.empty() && path.back() != '/', InvalidArgument, "write_csv: '" + path + "' is not a file name");
  Engine& engine = frame.engine();
  const Comm& comm = engine.comm();
  const Schema& schema = frame.schema();
  const int me = comm.rank(), p = comm.size();

  Frame(frame).persist();  // runs the graph (collective)
  const std::vector<std::int64_t> part_rows = frame.local_partition_rows();
  const auto offset = frame.global_offset();
  std::int64_t local_rows = 0;
  for (auto n : part_rows) local_rows += n;

  // The timestamp columns' levels per pandas chunk this rank's rows touch (chunks c0..c1), agreed with the ranks
  // that share the first or last of them (a rank covering a chunk's inside covers all of it).
  std::vector<std::size_t> ts_cols;
  for (std::size_t c = 0; c < schema.size(); ++c)
    if (schema.type(c) == ElementType::timestamp) ts_cols.push_back(c);
  const std::size_t nts = ts_cols.size();
  const std::int64_t K = std::max<std::int64_t>(1, kPandasChunkCells / std::max<std::int64_t>(1, schema.size()));
  const std::int64_t c0 = offset / K, c1 = local_rows > 0 ? (offset + local_rows - 1) / K : c0;
  std::vector<std::uint8_t> levels;
  if (nts > 0) {
    levels.assign(static_cast<std::size_t>(c1 - c0 + 1) * nts, 0);
    // Collectively: a partition that cannot be read on one rank fails on every rank, before the allgather below.
    comm.run_collectively([&] {
      std::int64_t row = offset;
      for (const Chunk& chunk : frame.partitions()) {
        auto [pin, b] = view_chunk(chunk);
        const auto n = static_cast<std::size_t>(b.nrows());
        for (std::size_t k = 0; k < nts; ++k) {
          const std::int64_t* v = n ? b.column<std::int64_t>(ts_cols[k]).data() : nullptr;
          const std::uint8_t* valid = b.valid(ts_cols[k]);
          for (std::size_t i = 0; i < n; ++i)
            if (valid == nullptr || valid[i]) {
              std::uint8_t& l =
                  levels[static_cast<std::size_t>((row + static_cast<std::int64_t>(i)) / K - c0) * nts + k];
              l = std::max(l, timestamp_level(v[i]));
            }
        }
        row += static_cast<std::int64_t>(n);
      }
    });
    // Per rank: has rows, c0, c1, the levels of c0, the levels of c1.
    const std::size_t W = 3 + 2 * nts;
    std::vector<std::int64_t> mine(W, 0), all(W * static_cast<std::size_t>(p));
    mine[0] = local_rows > 0, mine[1] = c0, mine[2] = c1;
    for (std::size_t k = 0; k < nts; ++k) {
      mine[3 + k] = levels[k];
      mine[3 + nts + k] = levels[static_cast<std::size_t>(c1 - c0) * nts + k];
    }
    comm.allgather(std::span<const std::int64_t>(mine), std::span<std::int64_t>(all));
    if (local_rows > 0)
      for (int r = 0; r < p; ++r) {
        const std::int64_t* o = &all[static_cast<std::size_t>(r) * W];
        if (r == me || !o[0]) continue;
        for (const std::int64_t c : {c0, c1})
          for (int side = 0; side < 2; ++side)
            if (o[1 + side] == c)
              for (std::size_t k = 0; k < nts; ++k) {
                std::uint8_t& l = levels[static_cast<std::size_t>(c - c0) * nts + k];
                l = std::max(l, static_cast<std::uint8_t>(o[3 + side * nts + k]));
              }
      }
  }

  // Format every partition once to learn the byte counts, keeping the texts that fit the budget (reserved), so
  // that only the others are formatted again when written.
  RowFormatter fmt(schema, opt);
  std::string head;
  if (me == 0 && opt.header) fmt.header(head);
  const std::size_t nparts = frame.num_partitions();
  std::vector<std::int64_t> first_row(nparts + 1, offset);
  for (std::size_t k = 0; k < nparts; ++k) first_row[k + 1] = first_row[k] + part_rows[k];
  auto format_partition = [&](std::size_t k, std::string& out) {
    auto [pin, b] = view_chunk(frame.partitions()[k]);
    const std::int64_t r0 = first_row[k];
    fmt.rows(b, out, [&](std::size_t i) -> const std::uint8_t* {
      if (nts == 0) return nullptr;
      return &levels[static_cast<std::size_t>((r0 + static_cast<std::int64_t>(i)) / K - c0) * nts];
    });
  };
  std::vector<std::uint64_t> sizes(nparts, 0);
  std::vector<std::optional<std::string>> kept(nparts);
  Reservation room = engine.memory().reserve("csv text", 0);
  const std::uint64_t keep_cap = engine.memory().budget(4);
  comm.run_collectively([&] {
    std::string text;
    for (std::size_t k = 0; k < nparts; ++k) {
      text.clear();
      format_partition(k, text);
      sizes[k] = text.size();
      if (room.size() + text.size() <= keep_cap && room.try_grow(text.size())) kept[k] = std::move(text);
      text = std::string();
    }
  });
  std::uint64_t mine = head.size();
  for (auto s : sizes) mine += s;
  std::vector<std::uint64_t> all_bytes(static_cast<std::size_t>(p));
  comm.allgather(std::span<const std::uint64_t>(&mine, 1), std::span<std::uint64_t>(all_bytes));
  std::uint64_t at = 0;
  for (int r = 0; r < me; ++r) at += all_bytes[static_cast<std::size_t>(r)];

  // Rank 0 makes the temporary (empty); then every rank writes its bytes at its offset.
  const std::string temp = temporary_for(path);
  comm.run_collectively([&] {
    if (me != 0) return;
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) SLAB_FAIL(IoError, path + ": is a directory");
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0)
      SLAB_FAIL(IoError, path + ": cannot create: " + std::strerror(errno) + " (in " + directory_of(path) + ")");
    ::close(fd);
  });
  auto remove_temp = [&] {
    if (me == 0) ::unlink(temp.c_str());
  };
  try {
    comm.run_collectively([&] {
      if (mine == 0) return;
      const int fd = ::open(temp.c_str(), O_WRONLY | O_CLOEXEC);
      if (fd < 0)
        SLAB_FAIL(IoError, path + ": write failed: cannot open the temporary " + temp + ": " + std::strerror(errno));
      int err = pwrite_all(fd, head.data(), head.size(), at);
      std::uint64_t pos = at + head.size();
      std::string text;
      for (std::size_t k = 0; k < nparts && err == 0; ++k) {
        const std::string* t = nullptr;
        if (kept[k]) {
          t = &*kept[k];
        } else {
          text.clear();
          format_partition(k, text);
          t = &text;
        }
        err = pwrite_all(fd, t->data(), t->size(), pos);
        pos += t->size();
        if (kept[k]) {
          room.shrink(kept[k]->size());
          kept[k].reset();
        }
      }
      if (::close(fd) != 0 && err == 0) err = errno;
      if (err != 0) SLAB_FAIL(IoError, path + ": write failed: " + std::strerror(err));
    });
    room.release();
    comm.run_collectively([&] {
      if (me == 0 && ::rename(temp.c_str(), path.c_str()) != 0)
        SLAB_FAIL(IoError, path + ": cannot move into place: " + std::strerror(errno));
    });
  } catch (...) {
    remove_temp();
    throw;
  }
}

}  // namespace slab::io
