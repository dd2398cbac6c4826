// read_csv: parallel CSV reading by byte ranges. See slab/io/csv.hpp for the algorithm and the messages.
#include "slab/io/csv.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "slab/comm/comm.hpp"
#include "slab/core/error.hpp"
#include "slab/core/time.hpp"

namespace slab::io {

using namespace slab::frame;

bool parse_int64(std::string_view t, std::int64_t& v) noexcept {
  if (!t.empty() && t[0] == '+') t.remove_prefix(1);
  if (t.empty()) return false;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  return ec == std::errc() && p == t.data() + t.size();
}

namespace {
// Digits with an optional sign: an integer, whether or not it fits in int64.
bool is_integer_text(std::string_view t) noexcept {
  if (!t.empty() && (t[0] == '+' || t[0] == '-')) t.remove_prefix(1);
  if (t.empty()) return false;
  for (char c : t)
    if (c < '0' || c > '9') return false;
  return true;
}
}  // namespace

bool parse_float64(std::string_view t, double& v) noexcept {
  if (!t.empty() && t[0] == '+') t.remove_prefix(1);
  if (t.empty() || t[0] == '+') return false;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec == std::errc::result_out_of_range) {  // denormal underflow or overflow: strtod gives the limit value
    const std::string s(t);
    v = std::strtod(s.c_str(), nullptr);
    return true;
  }
  return ec == std::errc() && p == t.data() + t.size();
}

bool parse_bool(std::string_view t, bool& v) noexcept {
  if (t == "true" || t == "True" || t == "TRUE") return v = true, true;
  if (t == "false" || t == "False" || t == "FALSE") return v = false, true;
  return false;
}

namespace {

constexpr std::uint64_t kNone = std::numeric_limits<std::uint64_t>::max();

// The first problem in file order seen on this rank.
struct FirstError {
  std::uint64_t offset = kNone;
  std::string message;
  void set(std::uint64_t off, std::string m) {
    if (off < offset || message.empty()) offset = off, message = std::move(m);
  }
  [[nodiscard]] bool any() const { return !message.empty(); }
};

// Every rank throws the error with the smallest file offset (same message everywhere), or nobody throws.
void agree_first(const Comm& comm, const FirstError& e) {
  std::uint64_t mine = e.any() ? e.offset : kNone;
  std::uint64_t flag = e.any() ? 1 : 0;
  const std::uint64_t any = comm.allreduce(flag, ReduceOp::max);
  if (!any) return;
  const std::uint64_t best = comm.allreduce(mine, ReduceOp::min);
  const int owner_cand = (e.any() && mine == best) ? comm.rank() : comm.size();
  const int owner = comm.allreduce(owner_cand, ReduceOp::min);
  std::uint64_t len = comm.rank() == owner ? e.message.size() : 0;
  comm.bcast(std::span<std::uint64_t>(&len, 1), owner);
  std::string msg(len, '\0');
  if (comm.rank() == owner) msg = e.message;
  comm.bcast(std::span<char>(msg.data(), msg.size()), owner);
  SLAB_FAIL(IoError, msg);
}

struct FieldRef {
  std::uint64_t begin;  ///< content start in the buffer (after an opening quote)
  std::uint32_t len;    ///< content length
  std::uint8_t quoted;  ///< 1 quoted, 2 quoted with "" escapes
};

struct Tokens {
  std::vector<FieldRef> fields;        ///< ncols per record
  std::vector<std::uint64_t> rec_pos;  ///< buffer offset of each record's start
  std::vector<std::int64_t> rec_line;  ///< line number of each record's start
};

class Tokenizer {
 public:
  Tokenizer(const std::string& file, const char* buf, std::size_t size, std::uint64_t base, std::int64_t line,
            char delim)
      : file_(file), buf_(buf), size_(size), base_(base), line_(line), delim_(delim) {}

  std::size_t pos() const { return pos_; }
  /// Start past the first n bytes (a byte-order mark), keeping the columns those bytes take.
  void skip(std::size_t n) { pos_ = std::min(n, size_); }
  bool at_end() const { return pos_ >= size_; }
  std::int64_t line() const { return line_; }

  // Skip blank lines; false at the end of the buffer.
  bool skip_blank() {
    for (;;) {
      if (pos_ >= size_) return false;
      if (buf_[pos_] == '\n') {
        ++pos_, ++line_, line_start_ = pos_;
      } else if (buf_[pos_] == '\r' && pos_ + 1 < size_ && buf_[pos_ + 1] == '\n') {
        pos_ += 2, ++line_, line_start_ = pos_;
      } else {
        return true;
      }
    }
  }

  // Tokenize one record into `out` (appended). Returns false and sets err on malformed input.
  // `end_col` receives the column of the record's terminator (for short rows).
  bool record(std::vector<FieldRef>& out, std::size_t& nfields, FirstError& err, std::size_t expect,
              std::uint64_t& extra_at, std::int64_t& extra_line, std::int64_t& extra_col, std::int64_t& end_line,
              std::int64_t& end_col) {
    nfields = 0;
    extra_at = kNone;
    for (;;) {
      const std::size_t start = pos_;
      FieldRef f{};
      if (nfields == expect) {
        extra_at = start;
        extra_line = line_;
        extra_col = static_cast<std::int64_t>(start - line_start_) + 1;
      }
      if (pos_ < size_ && buf_[pos_] == '"') {
        const std::int64_t qline = line_;
        const std::size_t qcol = start - line_start_ + 1;
        ++pos_;
        f.begin = pos_;
        f.quoted = 1;
        for (;;) {
          const char* q = static_cast<const char*>(std::memchr(buf_ + pos_, '"', size_ - pos_));
          const std::size_t qpos = q ? static_cast<std::size_t>(q - buf_) : size_;
          for (const char* nl = buf_ + pos_;
               (nl = static_cast<const char*>(std::memchr(nl, '\n', buf_ + qpos - nl)));) {
            ++line_;
            ++nl;
            line_start_ = static_cast<std::size_t>(nl - buf_);
          }
          if (!q) {
            err.set(base_ + start, loc(qline, qcol) + "unterminated quoted field");
            return false;
          }
          if (qpos + 1 < size_ && buf_[qpos + 1] == '"') {
            f.quoted = 2;
            pos_ = qpos + 2;
            continue;
          }
          f.len = static_cast<std::uint32_t>(qpos - f.begin);
          pos_ = qpos + 1;
          break;
        }
        if (pos_ < size_ && buf_[pos_] != delim_ && buf_[pos_] != '\n' &&
            !(buf_[pos_] == '\r' && (pos_ + 1 == size_ || buf_[pos_ + 1] == '\n'))) {
          err.set(base_ + pos_, loc(line_, pos_ - line_start_ + 1) + "unexpected character after a closing quote");
          return false;
        }
      } else {
        f.begin = pos_;
        while (pos_ < size_) {
          const char c = buf_[pos_];
          if (c == delim_ || c == '\n') break;
          if (c == '"') {
            err.set(base_ + pos_, loc(line_, pos_ - line_start_ + 1) + "quote inside an unquoted field");
            return false;
          }
          ++pos_;
        }
        std::size_t e = pos_;
        if ((pos_ >= size_ || buf_[pos_] == '\n') && e > f.begin && buf_[e - 1] == '\r') --e;
        f.len = static_cast<std::uint32_t>(e - f.begin);
      }
      if (nfields < expect) out.push_back(f);
      ++nfields;
      if (pos_ >= size_) {
        end_line = line_, end_col = static_cast<std::int64_t>(pos_ - line_start_) + 1;
        return true;
      }
      if (buf_[pos_] == delim_) {
        ++pos_;
        continue;
      }
      // The terminator: "\n" or "\r\n" (an unquoted field stopped at the '\n' and dropped the '\r').
      std::size_t term = pos_;
      if (buf_[pos_] == '\n' && term > line_start_ && buf_[term - 1] == '\r') --term;
      end_line = line_, end_col = static_cast<std::int64_t>(term - line_start_) + 1;
      if (buf_[pos_] == '\r') ++pos_;
      ++pos_, ++line_, line_start_ = pos_;
      return true;
    }
  }

  std::string loc(std::int64_t line, std::size_t col) const {
    return file_ + ":" + std::to_string(line) + ":" + std::to_string(col) + ": ";
  }
  // Line and column of buffer offset `at` inside the record starting at rec (line rec_line).
  std::pair<std::int64_t, std::int64_t> where(std::uint64_t rec, std::int64_t rec_line, std::uint64_t at) const {
    std::int64_t line = rec_line;
    std::uint64_t ls = rec;
    for (std::uint64_t i = rec; i < at; ++i)
      if (buf_[i] == '\n') ++line, ls = i + 1;
    return {line, static_cast<std::int64_t>(at - ls) + 1};
  }

 private:
  const std::string& file_;
  const char* buf_;
  std::size_t size_;
  std::uint64_t base_;
  std::size_t pos_ = 0;
  std::int64_t line_;
  std::size_t line_start_ = 0;
  char delim_;
};

bool read_at(int fd, char* out, std::uint64_t n, std::uint64_t offset) {
  while (n > 0) {
    const ssize_t r = ::pread(fd, out, n, static_cast<off_t>(offset));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    out += r, n -= static_cast<std::uint64_t>(r), offset += static_cast<std::uint64_t>(r);
  }
  return true;
}

std::string field_text(const char* buf, const FieldRef& f) {
  std::string s(buf + f.begin, f.len);
  if (f.quoted == 2) {
    std::string u;
    u.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
      u.push_back(s[i]);
      if (s[i] == '"' && i + 1 < s.size() && s[i + 1] == '"') ++i;
    }
    return u;
  }
  return s;
}

enum Cand { kBool = 0, kInt = 1, kFloat = 2, kTime = 3, kNCand = 4 };

// Offset of the first byte of `t` that is not well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates,
// nothing above U+10FFFF), or npos. Strings must be text: pandas refuses such bytes too.
std::size_t invalid_utf8(std::string_view t) noexcept {
  const auto* u = reinterpret_cast<const unsigned char*>(t.data());
  const std::size_t n = t.size();
  for (std::size_t i = 0; i < n;) {
    const unsigned c = u[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t len;
    unsigned lo = 0x80, hi = 0xBF;  // range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    } else {
      return i;
    }
    if (i + len > n || u[i + 1] < lo || u[i + 1] > hi) return i;
    for (std::size_t k = 2; k < len; ++k)
      if ((u[i + k] & 0xC0) != 0x80) return i;
    i += len;
  }
  return std::string_view::npos;
}

// pandas' renaming of duplicate header names (its C parser): the second "x" becomes "x.1", or the next free
// "x.<k>" when the header holds "x.1" itself; unnamed columns are renamed last, so given names keep theirs.
std::vector<std::string> dedup_header(std::vector<std::string> names, const std::vector<bool>& unnamed) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < names.size(); ++i)
    if (!unnamed[i]) order.push_back(i);
  for (std::size_t i = 0; i < names.size(); ++i)
    if (unnamed[i]) order.push_back(i);
  std::map<std::string, std::int64_t> counts;
  for (std::size_t i : order) {
    std::string col = names[i];
    const std::string old = col;
    std::int64_t cur = counts.count(col) ? counts[col] : 0;
    while (cur > 0) {
      counts[old] = cur + 1;
      col = old + "." + std::to_string(cur);
      if (std::find(names.begin(), names.end(), col) != names.end())
        ++cur;
      else
        cur = counts.count(col) ? counts[col] : 0;
    }
    names[i] = col;
    counts[col] = cur + 1;
  }
  return names;
}

}  // namespace

Frame read_csv(Engine& engine, const std::string& path, const CsvOptions& opt) {
  const Comm& comm = engine.comm();
  const int p = comm.size(), me = comm.rank();
  SLAB_EXPECTS(opt.header || !opt.names.empty(), InvalidArgument, "read_csv: header = false needs the column names");

  // Open and size.
  FirstError err;
  int fd = ::open(path.c_str(), O_RDONLY);
  std::uint64_t fsize = 0;
  if (fd < 0) {
    err.set(0, path + ": cannot open: " + std::strerror(errno));
  } else {
    struct stat st {};
    if (::fstat(fd, &st) != 0 || S_ISDIR(st.st_mode))
      err.set(0, path + ": cannot open: not a regular file");
    else
      fsize = static_cast<std::uint64_t>(st.st_size);
  }
  struct FdCloser {
    int fd;
    ~FdCloser() {
      if (fd >= 0) ::close(fd);
    }
  } closer{fd};
  agree_first(comm, err);
  fsize = comm.allreduce(fsize, ReduceOp::max);  // same on every rank (a file growing meanwhile is not supported)
  if (fsize == 0) SLAB_FAIL(IoError, path + ": empty file");

  // Pass 1: quotes and newlines in my byte range.
  const std::uint64_t b0 = fsize * static_cast<std::uint64_t>(me) / static_cast<std::uint64_t>(p);
  const std::uint64_t b1 = fsize * static_cast<std::uint64_t>(me + 1) / static_cast<std::uint64_t>(p);
  std::vector<char> range(b1 - b0);
  if (!read_at(fd, range.data(), range.size(), b0)) err.set(b0, path + ": read error: " + std::strerror(errno));
  agree_first(comm, err);
  std::uint64_t counts[2] = {0, 0};
  for (char c : range) counts[0] += c == '"', counts[1] += c == '\n';
  std::vector<std::uint64_t> all_counts(2 * p);
  comm.allgather(std::span<const std::uint64_t>(counts, 2), std::span<std::uint64_t>(all_counts));
  std::uint64_t quotes_before = 0, lines_before = 0;
  for (int r = 0; r < me; ++r) quotes_before += all_counts[2 * r], lines_before += all_counts[2 * r + 1];

  // Pass 2: my first record start (the first newline outside quotes in my range; rank 0: byte 0).
  std::uint64_t start = kNone;
  std::int64_t start_line = 0;
  if (me == 0) {
    start = 0, start_line = 1;
  } else {
    bool inside = quotes_before % 2 == 1;
    std::uint64_t nl = 0;
    for (std::size_t i = 0; i < range.size(); ++i) {
      const char c = range[i];
      if (c == '"')
        inside = !inside;
      else if (c == '\n') {
        ++nl;
        if (!inside) {
          start = b0 + i + 1;
          start_line = static_cast<std::int64_t>(lines_before + nl) + 1;
          break;
        }
      }
    }
  }
  range = {};
  if (start >= fsize && me != 0) start = kNone;
  std::vector<std::uint64_t> starts(p);
  comm.allgather(std::span<const std::uint64_t>(&start, 1), std::span<std::uint64_t>(starts));
  std::uint64_t end = fsize;
  for (int r = me + 1; r < p; ++r)
    if (starts[r] != kNone) {
      end = starts[r];
      break;
    }
  std::vector<char> buf;
  if (start != kNone) {
    buf.resize(end - start);
    if (!read_at(fd, buf.data(), buf.size(), start)) err.set(start, path + ": read error: " + std::strerror(errno));
  }
  agree_first(comm, err);

  Tokenizer tok(path, buf.data(), buf.size(), start == kNone ? 0 : start, start_line, opt.delimiter);
  // A UTF-8 byte-order mark (Excel writes one) is not part of the first field, as in pandas.
  if (me == 0 && buf.size() >= 3 && std::memcmp(buf.data(), "\xEF\xBB\xBF", 3) == 0) tok.skip(3);

  // Header (rank 0), broadcast.
  std::vector<std::string> names;
  bool empty = false;
  if (me == 0 && opt.header) {
    if (!tok.skip_blank()) {
      empty = true;
    } else {
      std::vector<FieldRef> hf;
      std::size_t nf;
      std::uint64_t xa;
      std::int64_t xl, xc, el, ec;
      std::vector<bool> unnamed;
      if (tok.record(hf, nf, err, std::numeric_limits<std::size_t>::max(), xa, xl, xc, el, ec))
        for (std::size_t i = 0; i < hf.size(); ++i) {
          const std::size_t bad = invalid_utf8({buf.data() + hf[i].begin, hf[i].len});
          if (bad != std::string_view::npos) {
            auto [L, C] = tok.where(0, start_line, hf[i].begin + bad);
            err.set(hf[i].begin + bad,
                    path + ":" + std::to_string(L) + ":" + std::to_string(C) + ": invalid UTF-8 in the header");
            break;
          }
          std::string n = field_text(buf.data(), hf[i]);
          unnamed.push_back(n.empty());
          names.push_back(n.empty() ? "Unnamed: " + std::to_string(i) : n);
        }
      if (names.size() == unnamed.size()) names = dedup_header(std::move(names), unnamed);
    }
  }
  agree_first(comm, err);
  if (opt.header) {
    std::uint64_t e = empty;
    comm.bcast(std::span<std::uint64_t>(&e, 1), 0);
    if (e) SLAB_FAIL(IoError, path + ": empty file");
    std::string packed;
    for (const auto& n : names) packed += n + '\0';
    std::uint64_t len = packed.size();
    comm.bcast(std::span<std::uint64_t>(&len, 1), 0);
    packed.resize(len);
    comm.bcast(std::span<char>(packed.data(), packed.size()), 0);
    names.clear();
    std::size_t s0 = 0;
    for (std::size_t i = 0; i < packed.size(); ++i)
      if (packed[i] == '\0') names.emplace_back(packed.data() + s0, i - s0), s0 = i + 1;
  }
  if (!opt.names.empty()) {
    SLAB_EXPECTS(!opt.header || opt.names.size() == names.size(), InvalidArgument,
                 "read_csv: " + std::to_string(opt.names.size()) + " names given for " + std::to_string(names.size()) +
                     " columns in " + path);
    names = opt.names;
  }
  const std::size_t ncols = names.size();
  for (const auto& [name, type] : opt.dtypes)
    SLAB_EXPECTS(std::find(names.begin(), names.end(), name) != names.end(), InvalidArgument,
                 "read_csv: dtype given for '" + name + "', which is not a column of " + path);

  // Tokenize my records.
  Tokens t;
  while (tok.skip_blank()) {
    const std::uint64_t rp = tok.pos();
    const std::int64_t rl = tok.line();
    std::size_t nf;
    std::uint64_t xa;
    std::int64_t xl = 0, xc = 0, el = 0, ec = 0;
    const std::size_t before = t.fields.size();
    if (!tok.record(t.fields, nf, err, ncols, xa, xl, xc, el, ec)) break;
    if (nf != ncols) {
      const std::int64_t L = nf > ncols ? xl : el, C = nf > ncols ? xc : ec;
      err.set((start == kNone ? 0 : start) + (nf > ncols ? xa : rp),
              path + ":" + std::to_string(L) + ":" + std::to_string(C) + ": expected " + std::to_string(ncols) +
                  " fields, found " + std::to_string(nf));
      t.fields.resize(before);
      break;
    }
    t.rec_pos.push_back(rp);
    t.rec_line.push_back(rl);
  }
  agree_first(comm, err);
  const std::size_t nrows = t.rec_pos.size();

  // Null markers and types.
  auto is_null_text = [&](std::string_view s) {
    for (const auto& n : opt.null_values)
      if (s == n) return true;
    return false;
  };
  auto text_of = [&](std::size_t r, std::size_t c, std::string& scratch) -> std::string_view {
    const FieldRef& f = t.fields[r * ncols + c];
    if (f.quoted == 2) {
      scratch = field_text(buf.data(), f);
      return scratch;
    }
    return {buf.data() + f.begin, f.len};
  };
  std::vector<ElementType> types(ncols, ElementType::string);
  {
    std::vector<int> cand(ncols * kNCand, 1);
    std::vector<int> seen(ncols, 0);
    std::string scratch;
    for (std::size_t c = 0; c < ncols; ++c) {
      if (opt.dtypes.count(names[c])) continue;
      int* k = &cand[c * kNCand];
      for (std::size_t r = 0; r < nrows && (k[0] | k[1] | k[2] | k[3]); ++r) {
        std::string_view s = text_of(r, c, scratch);
        if (is_null_text(s)) continue;
        seen[c] = 1;
        bool b;
        std::int64_t i;
        double d;
        if (k[kBool] && !parse_bool(s, b)) k[kBool] = 0;
        // An integer beyond int64 stays an int64 candidate, so that the conversion below names it instead
        // of the column silently becoming float64 with the value rounded.
        if (k[kInt] && !parse_int64(s, i) && !is_integer_text(s)) k[kInt] = 0;
        if (k[kFloat] && !parse_float64(s, d)) k[kFloat] = 0;
        if (k[kTime] && !parse_timestamp(s, i)) k[kTime] = 0;
      }
    }
    comm.allreduce(std::span<int>(cand), ReduceOp::min);
    comm.allreduce(std::span<int>(seen), ReduceOp::max);
    for (std::size_t c = 0; c < ncols; ++c) {
      auto it = opt.dtypes.find(names[c]);
      if (it != opt.dtypes.end())
        types[c] = it->second;
      else if (!seen[c])
        types[c] = ElementType::float64;
      else if (cand[c * kNCand + kBool])
        types[c] = ElementType::boolean;
      else if (cand[c * kNCand + kInt])
        types[c] = ElementType::int64;
      else if (cand[c * kNCand + kFloat])
        types[c] = ElementType::float64;
      else if (cand[c * kNCand + kTime])
        types[c] = ElementType::timestamp;
      else
        types[c] = ElementType::string;
    }
  }

  // Convert.
  LocalTable table;
  {
    std::string scratch;
    for (std::size_t c = 0; c < ncols; ++c) {
      LocalColumn col;
      col.name = names[c];
      col.type = types[c];
      std::vector<std::uint8_t> valid(nrows, 1);
      bool any_null = false;
      auto bad = [&](std::size_t r, std::string_view s) {
        const FieldRef& f = t.fields[r * ncols + c];
        const std::uint64_t at = f.begin - (f.quoted ? 1 : 0);
        auto [L, C] = tok.where(t.rec_pos[r], t.rec_line[r], at);
        const std::string loc = path + ":" + std::to_string(L) + ":" + std::to_string(C) + ": ";
        if (types[c] == ElementType::int64 && is_integer_text(s))
          err.set((start == kNone ? 0 : start) + at,
                  loc + "integer '" + std::string(s) + "' does not fit in int64 (column '" + names[c] +
                      "'); read the column as string or float64 with CsvOptions::dtypes");
        else
          err.set((start == kNone ? 0 : start) + at, loc + "cannot parse '" + std::string(s) + "' as " +
                                                         to_string(types[c]) + " (column '" + names[c] + "')");
      };
      switch (types[c]) {
        case ElementType::int64:
        case ElementType::timestamp:
          col.ints.resize(nrows, 0);
          break;
        case ElementType::float64:
          col.floats.resize(nrows, std::numeric_limits<double>::quiet_NaN());
          break;
        case ElementType::boolean:
          col.bools.resize(nrows, 0);
          break;
        case ElementType::string:
          col.strings.resize(nrows);
          break;
        default:  // not a column type: a Schema holds none
          break;
      }
      for (std::size_t r = 0; r < nrows; ++r) {
        std::string_view s = text_of(r, c, scratch);
        if (is_null_text(s)) {
          valid[r] = 0, any_null = true;
          continue;
        }
        bool ok = true, reported = false;
        switch (types[c]) {
          case ElementType::int64:
            ok = parse_int64(s, col.ints[r]);
            break;
          case ElementType::timestamp:
            ok = parse_timestamp(s, col.ints[r]);
            break;
          case ElementType::float64:
            ok = parse_float64(s, col.floats[r]);
            break;
          case ElementType::boolean: {
            bool b = false;
            ok = parse_bool(s, b);
            col.bools[r] = b;
            break;
          }
          case ElementType::string: {
            // Checked on the raw bytes (a "" escape is ASCII), so the column is that of the bad byte.
            const FieldRef& f = t.fields[r * ncols + c];
            const std::size_t bad = invalid_utf8({buf.data() + f.begin, f.len});
            if (bad != std::string_view::npos) {
              auto [L, C] = tok.where(t.rec_pos[r], t.rec_line[r], f.begin + bad);
              err.set((start == kNone ? 0 : start) + f.begin + bad, path + ":" + std::to_string(L) + ":" +
                                                                        std::to_string(C) +
                                                                        ": invalid UTF-8 (column '" + names[c] + "')");
              reported = true;
              break;
            }
            col.strings[r] = std::string(s);
            break;
          }
          default:  // not a column type: a Schema holds none
            break;
        }
        if (reported) break;
        if (!ok) {
          bad(r, s);
          break;
        }
      }
      if (any_null && types[c] != ElementType::float64) col.valid = std::move(valid);
      table.columns.push_back(std::move(col));
    }
  }
  agree_first(comm, err);
  buf = {};
  t = {};
  return Frame::from_local_table(engine, table, opt.rows_per_partition);
}

}  // namespace slab::io
