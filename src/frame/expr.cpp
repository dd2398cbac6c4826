#include "slab/frame/expr.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <locale>
#include <optional>
#include <regex>

#include "array/kernels/cast_hd.hpp"
#include "core/floor_divide.hpp"
#include "frame/expr_program.hpp"
#include "slab/core/error.hpp"
#include "slab/core/time.hpp"

namespace slab::frame {

namespace {
Expr make(ExprOp op, std::vector<Expr> args) {
  auto n = std::make_shared<ExprNode>();
  n->op = op;
  n->args = std::move(args);
  return Expr(std::move(n));
}
bool is_arith(ExprOp op) {
  return op == ExprOp::add || op == ExprOp::sub || op == ExprOp::mul || op == ExprOp::div || op == ExprOp::floordiv ||
         op == ExprOp::mod;
}
bool is_cmp(ExprOp op) { return op >= ExprOp::eq && op <= ExprOp::ge; }
const char* op_name(ExprOp op) {
  switch (op) {
    case ExprOp::add:
      return "+";
    case ExprOp::sub:
      return "-";
    case ExprOp::mul:
      return "*";
    case ExprOp::div:
      return "/";
    case ExprOp::floordiv:
      return "//";
    case ExprOp::mod:
      return "%";
    case ExprOp::eq:
      return "==";
    case ExprOp::ne:
      return "!=";
    case ExprOp::lt:
      return "<";
    case ExprOp::le:
      return "<=";
    case ExprOp::gt:
      return ">";
    case ExprOp::ge:
      return ">=";
    case ExprOp::logical_and:
      return "&";
    case ExprOp::logical_or:
      return "|";
    default:
      return "?";
  }
}
ElementType scalar_type(const Scalar& s) {
  if (std::holds_alternative<std::int64_t>(s)) return ElementType::int64;
  if (std::holds_alternative<double>(s)) return ElementType::float64;
  if (std::holds_alternative<bool>(s)) return ElementType::boolean;
  if (std::holds_alternative<std::string>(s)) return ElementType::string;
  return ElementType::float64;  // null literal
}
std::string scalar_string(const Scalar& s) {
  if (auto* i = std::get_if<std::int64_t>(&s)) return std::to_string(*i);
  if (auto* d = std::get_if<double>(&s)) return std::to_string(*d);
  if (auto* b = std::get_if<bool>(&s)) return *b ? "True" : "False";
  if (auto* t = std::get_if<std::string>(&s)) return "'" + *t + "'";
  return "None";
}
/// isin's values as doubles (the non-string literals, in order): what a number is compared with.
std::vector<double> isin_doubles(const std::vector<Scalar>& values) {
  std::vector<double> vals;
  for (const auto& v : values) {
    if (auto* x = std::get_if<std::int64_t>(&v))
      vals.push_back(static_cast<double>(*x));
    else if (auto* d = std::get_if<double>(&v))
      vals.push_back(*d);
    else if (auto* b = std::get_if<bool>(&v))
      vals.push_back(*b);
  }
  return vals;
}
/// isin's string literals as codes of `dict` (those it holds, in order).
std::vector<std::int32_t> isin_codes(const std::vector<Scalar>& values, const Dictionary& dict) {
  std::vector<std::int32_t> codes;
  for (const auto& v : values)
    if (auto* str = std::get_if<std::string>(&v)) {
      auto it = std::lower_bound(dict->begin(), dict->end(), *str);
      if (it != dict->end() && *it == *str) codes.push_back(static_cast<std::int32_t>(it - dict->begin()));
    }
  return codes;
}
bool is_null_literal(const Expr& e) {
  return e.node().op == ExprOp::literal && std::holds_alternative<std::monostate>(e.node().value);
}
bool is_string_literal(const Expr& e) {
  return e.node().op == ExprOp::literal && std::holds_alternative<std::string>(e.node().value);
}
// A string literal compared with a timestamp, as nanoseconds. @throws InvalidArgument naming it.
std::int64_t timestamp_literal(const Expr& lit_expr, const Expr& whole) {
  const std::string& text = std::get<std::string>(lit_expr.node().value);
  std::int64_t ns = 0;
  SLAB_EXPECTS(parse_timestamp(text, ns), InvalidArgument,
               "expression " + whole.to_string() + ": '" + text +
                   "' is not a timestamp (compared with a timestamp column; expected e.g. '2024-03-11' or "
                   "'2024-03-11 08:30:00')");
  return ns;
}
ElementType where_type(const Expr& a, const Expr& b, const Schema& schema, const Expr& whole) {
  const bool na = is_null_literal(a), nb = is_null_literal(b);
  if (na && nb) return ElementType::float64;
  const ElementType ta = na ? b.type(schema) : a.type(schema), tb = nb ? ta : b.type(schema);
  SLAB_EXPECTS(ta != ElementType::string && tb != ElementType::string, TypeError,
               "expression " + whole.to_string() + ": where of strings is not supported");
  if (ta == tb) return ta;
  SLAB_EXPECTS(ta != ElementType::timestamp && tb != ElementType::timestamp, TypeError,
               "expression " + whole.to_string() + ": where mixes a timestamp with " +
                   frame::to_string(ta == ElementType::timestamp ? tb : ta));
  return ta == ElementType::float64 || tb == ElementType::float64 ? ElementType::float64 : ElementType::int64;
}
}  // namespace

Expr::Expr(double v) : Expr(lit(v)) {}
Expr::Expr(std::int64_t v) : Expr(lit(v)) {}
Expr::Expr(int v) : Expr(lit(static_cast<std::int64_t>(v))) {}
Expr::Expr(bool v) : Expr(lit(v)) {}
Expr::Expr(const char* v) : Expr(lit(std::string(v))) {}
Expr::Expr(std::string v) : Expr(lit(std::move(v))) {}

Expr col(std::string name) {
  auto n = std::make_shared<ExprNode>();
  n->op = ExprOp::column;
  n->column = std::move(name);
  return Expr(std::move(n));
}
Expr lit(Scalar value) {
  auto n = std::make_shared<ExprNode>();
  n->op = ExprOp::literal;
  n->value = std::move(value);
  return Expr(std::move(n));
}

Expr Expr::isnull() const { return make(ExprOp::isnull, {*this}); }
Expr Expr::notnull() const { return make(ExprOp::notnull, {*this}); }
Expr Expr::abs() const { return make(ExprOp::abs, {*this}); }
Expr Expr::isin(std::vector<Scalar> values) const {
  auto n = std::make_shared<ExprNode>();
  n->op = ExprOp::isin;
  n->args = {*this};
  n->values = std::move(values);
  return Expr(std::move(n));
}

Expr Expr::log() const { return make(ExprOp::log, {*this}); }
Expr Expr::exp() const { return make(ExprOp::exp, {*this}); }
Expr Expr::sqrt() const { return make(ExprOp::sqrt, {*this}); }
Expr Expr::round(std::int64_t decimals) const {
  Expr e = make(ExprOp::round, {*this});
  const_cast<ExprNode&>(e.node()).value = decimals;
  return e;
}
Expr Expr::clip(const Expr& lower, const Expr& upper) const { return make(ExprOp::clip, {*this, lower, upper}); }
Expr Expr::contains(std::string pattern, bool regex) const {
  Expr e = make(ExprOp::str_contains, {*this});
  auto& n = const_cast<ExprNode&>(e.node());
  n.value = std::move(pattern);
  n.values = {Scalar(regex)};
  return e;
}
Expr Expr::lower() const { return make(ExprOp::str_lower, {*this}); }
Expr Expr::len() const { return make(ExprOp::str_len, {*this}); }
Expr log(const Expr& x) { return x.log(); }
Expr exp(const Expr& x) { return x.exp(); }
Expr sqrt(const Expr& x) { return x.sqrt(); }
Expr round(const Expr& x, std::int64_t decimals) { return x.round(decimals); }
Expr clip(const Expr& x, const Expr& lower, const Expr& upper) { return x.clip(lower, upper); }
Expr where(const Expr& cond, const Expr& a, const Expr& b) { return make(ExprOp::where, {cond, a, b}); }

Expr operator+(const Expr& a, const Expr& b) { return make(ExprOp::add, {a, b}); }
Expr operator-(const Expr& a, const Expr& b) { return make(ExprOp::sub, {a, b}); }
Expr operator*(const Expr& a, const Expr& b) { return make(ExprOp::mul, {a, b}); }
Expr operator/(const Expr& a, const Expr& b) { return make(ExprOp::div, {a, b}); }
Expr operator%(const Expr& a, const Expr& b) { return make(ExprOp::mod, {a, b}); }
Expr floordiv(const Expr& a, const Expr& b) { return make(ExprOp::floordiv, {a, b}); }
Expr Expr::floordiv(const Expr& divisor) const { return make(ExprOp::floordiv, {*this, divisor}); }
Expr Expr::mod(const Expr& divisor) const { return make(ExprOp::mod, {*this, divisor}); }
Expr operator-(const Expr& a) { return make(ExprOp::neg, {a}); }
Expr operator==(const Expr& a, const Expr& b) { return make(ExprOp::eq, {a, b}); }
Expr operator!=(const Expr& a, const Expr& b) { return make(ExprOp::ne, {a, b}); }
Expr operator<(const Expr& a, const Expr& b) { return make(ExprOp::lt, {a, b}); }
Expr operator<=(const Expr& a, const Expr& b) { return make(ExprOp::le, {a, b}); }
Expr operator>(const Expr& a, const Expr& b) { return make(ExprOp::gt, {a, b}); }
Expr operator>=(const Expr& a, const Expr& b) { return make(ExprOp::ge, {a, b}); }
Expr operator&(const Expr& a, const Expr& b) { return make(ExprOp::logical_and, {a, b}); }
Expr operator|(const Expr& a, const Expr& b) { return make(ExprOp::logical_or, {a, b}); }
Expr operator~(const Expr& a) { return make(ExprOp::logical_not, {a}); }

ElementType Expr::type(const Schema& schema) const {
  const ExprNode& n = node();
  switch (n.op) {
    case ExprOp::column:
      return schema.type(schema.index_of(n.column));
    case ExprOp::literal:
      return scalar_type(n.value);
    case ExprOp::neg:
    case ExprOp::abs: {
      ElementType t = n.args[0].type(schema);
      SLAB_EXPECTS(t == ElementType::int64 || t == ElementType::float64, TypeError,
                   "expression " + to_string() + ": needs a number, got " + frame::to_string(t));
      return t;
    }
    case ExprOp::log:
    case ExprOp::exp:
    case ExprOp::sqrt:
    case ExprOp::round: {
      ElementType t = n.args[0].type(schema);
      SLAB_EXPECTS(
          t == ElementType::int64 || t == ElementType::float64 || (t == ElementType::boolean && n.op != ExprOp::round),
          TypeError, "expression " + to_string() + ": needs a number, got " + frame::to_string(t));
      return n.op == ExprOp::round ? t : ElementType::float64;
    }
    case ExprOp::clip: {
      bool f = false;
      for (std::size_t k = 0; k < 3; ++k) {
        if (k > 0 && is_null_literal(n.args[k])) continue;
        ElementType t = n.args[k].type(schema);
        SLAB_EXPECTS(t == ElementType::int64 || t == ElementType::float64, TypeError,
                     "expression " + to_string() + ": clip needs numbers, got " + frame::to_string(t));
        f |= t == ElementType::float64;
      }
      return f ? ElementType::float64 : ElementType::int64;
    }
    case ExprOp::where: {
      SLAB_EXPECTS(n.args[0].type(schema) == ElementType::boolean, TypeError,
                   "expression " + to_string() + ": where needs a boolean condition");
      return where_type(n.args[1], n.args[2], schema, *this);
    }
    case ExprOp::str_contains:
    case ExprOp::str_lower:
    case ExprOp::str_len: {
      ElementType t = n.args[0].type(schema);
      SLAB_EXPECTS(t == ElementType::string, TypeError,
                   "expression " + to_string() + ": needs a string column, got " + frame::to_string(t));
      return n.op == ExprOp::str_contains ? ElementType::boolean
             : n.op == ExprOp::str_len    ? ElementType::int64
                                          : ElementType::string;
    }
    default:
      break;
  }
  if (is_arith(n.op)) {
    ElementType a = n.args[0].type(schema), b = n.args[1].type(schema);
    auto num = [](ElementType t) {
      return t == ElementType::int64 || t == ElementType::float64 || t == ElementType::boolean ||
             t == ElementType::timestamp;
    };
    SLAB_EXPECTS(num(a) && num(b), TypeError,
                 "expression " + to_string() + ": cannot apply '" + op_name(n.op) + "' to " + frame::to_string(a) +
                     " and " + frame::to_string(b));
    SLAB_EXPECTS((n.op != ExprOp::floordiv && n.op != ExprOp::mod) ||
                     (a != ElementType::timestamp && b != ElementType::timestamp),
                 TypeError,
                 "expression " + to_string() + ": cannot apply '" + op_name(n.op) + "' to " + frame::to_string(a) +
                     " and " + frame::to_string(b));
    if (n.op == ExprOp::div || a == ElementType::float64 || b == ElementType::float64) return ElementType::float64;
    if ((a == ElementType::timestamp) != (b == ElementType::timestamp) && (n.op == ExprOp::add || n.op == ExprOp::sub))
      return ElementType::timestamp;
    return ElementType::int64;
  }
  if (is_cmp(n.op)) {
    ElementType a = n.args[0].type(schema), b = n.args[1].type(schema);
    if ((a == ElementType::timestamp && is_string_literal(n.args[1])) ||
        (b == ElementType::timestamp && is_string_literal(n.args[0]))) {
      (void)timestamp_literal(is_string_literal(n.args[0]) ? n.args[0] : n.args[1], *this);
      return ElementType::boolean;
    }
    SLAB_EXPECTS(
        (a == ElementType::string) == (b == ElementType::string), TypeError,
        "expression " + to_string() + ": cannot compare " + frame::to_string(a) + " with " + frame::to_string(b));
    return ElementType::boolean;
  }
  for (const auto& a : n.args) (void)a.type(schema);
  return ElementType::boolean;
}

std::vector<std::string> Expr::columns() const {
  std::vector<std::string> out;
  if (node().op == ExprOp::column) out.push_back(node().column);
  for (const auto& a : node().args)
    for (auto& c : a.columns())
      if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  return out;
}

std::string Expr::to_string() const {
  const ExprNode& n = node();
  switch (n.op) {
    case ExprOp::column:
      return n.column;
    case ExprOp::literal:
      return scalar_string(n.value);
    case ExprOp::neg:
      return "-" + n.args[0].to_string();
    case ExprOp::abs:
      return "abs(" + n.args[0].to_string() + ")";
    case ExprOp::log:
      return "log(" + n.args[0].to_string() + ")";
    case ExprOp::exp:
      return "exp(" + n.args[0].to_string() + ")";
    case ExprOp::sqrt:
      return "sqrt(" + n.args[0].to_string() + ")";
    case ExprOp::round:
      return "round(" + n.args[0].to_string() + ", " + scalar_string(n.value) + ")";
    case ExprOp::clip:
      return "clip(" + n.args[0].to_string() + ", " + n.args[1].to_string() + ", " + n.args[2].to_string() + ")";
    case ExprOp::where:
      return "where(" + n.args[0].to_string() + ", " + n.args[1].to_string() + ", " + n.args[2].to_string() + ")";
    case ExprOp::str_contains:
      return n.args[0].to_string() + ".str.contains(" + scalar_string(n.value) + ")";
    case ExprOp::str_lower:
      return n.args[0].to_string() + ".str.lower()";
    case ExprOp::str_len:
      return n.args[0].to_string() + ".str.len()";
    case ExprOp::logical_not:
      return "~" + n.args[0].to_string();
    case ExprOp::isnull:
      return n.args[0].to_string() + ".isnull()";
    case ExprOp::notnull:
      return n.args[0].to_string() + ".notnull()";
    case ExprOp::isin: {
      std::string s = n.args[0].to_string() + ".isin([";
      for (std::size_t i = 0; i < n.values.size(); ++i) s += (i ? ", " : "") + scalar_string(n.values[i]);
      return s + "])";
    }
    default:
      return "(" + n.args[0].to_string() + " " + op_name(n.op) + " " + n.args[1].to_string() + ")";
  }
}

// ---- evaluation ----------------------------------------------------------------------------------------

namespace {

// Lower-case a UTF-8 string code point by code point (Python's str.lower for the one-to-one mappings), with the
// C.UTF-8 locale's ctype<wchar_t>; ASCII only where that locale is missing. Invalid UTF-8 bytes are kept.
std::string utf8_lower(const std::string& s) {
  static const std::locale* loc = [] {
    try {
      return new std::locale("C.UTF-8");  // never freed: used until exit
    } catch (const std::exception&) {
      return static_cast<std::locale*>(nullptr);
    }
  }();
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    const std::size_t len = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
    bool ok = len > 0 && i + len <= s.size();
    char32_t cp = len == 1 ? b : len == 2 ? b & 0x1F : len == 3 ? b & 0x0F : b & 0x07;
    for (std::size_t k = 1; ok && k < len; ++k) {
      const auto c = static_cast<unsigned char>(s[i + k]);
      ok = (c & 0xC0) == 0x80;
      cp = (cp << 6) | (c & 0x3F);
    }
    if (!ok) {
      out.push_back(s[i++]);
      continue;
    }
    if (cp < 0x80)
      cp = cp >= 'A' && cp <= 'Z' ? cp - 'A' + 'a' : cp;
    else if (loc)
      cp = static_cast<char32_t>(std::tolower(static_cast<wchar_t>(cp), *loc));
    if (cp < 0x80) {
      out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
    i += len;
  }
  return out;
}
// The sorted distinct lower-cased entries of a dictionary.
Dictionary lowered_dictionary(const Dictionary& d) {
  std::vector<std::string> out;
  if (d) out.reserve(d->size());
  if (d)
    for (const auto& s : *d) out.push_back(utf8_lower(s));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return make_dictionary(std::move(out));
}

struct Ctx {
  const BatchView& batch;
  const Schema& schema;
  std::size_t n;
};

bool null_at(const EvalColumn& c, std::size_t i) {
  if (!c.valid.empty() && !c.valid[i]) return true;
  if (c.type == ElementType::float64) return std::isnan(c.floats[i]);
  if (c.type == ElementType::string) return c.codes[i] < 0;
  return false;
}
double dbl(const EvalColumn& c, std::size_t i) {
  switch (c.type) {
    case ElementType::float64:
      return c.floats[i];
    case ElementType::boolean:
      return c.bools[i];
    default:
      return static_cast<double>(c.ints[i]);
  }
}
std::int64_t i64(const EvalColumn& c, std::size_t i) {
  switch (c.type) {
    case ElementType::float64:
      return slab::kernels::cast_value<std::int64_t>(c.floats[i]);  // INT64_MIN past the range, as x86 and the device
    case ElementType::boolean:
      return c.bools[i];
    default:
      return c.ints[i];
  }
}

EvalColumn eval(const Expr& e, const Ctx& cx);

EvalColumn literal(const Scalar& s, std::size_t n) {
  EvalColumn c;
  c.type = scalar_type(s);
  if (auto* i = std::get_if<std::int64_t>(&s))
    c.ints.assign(n, *i);
  else if (auto* d = std::get_if<double>(&s))
    c.floats.assign(n, *d);
  else if (auto* b = std::get_if<bool>(&s))
    c.bools.assign(n, *b ? 1 : 0);
  else if (std::holds_alternative<std::monostate>(s))
    c.floats.assign(n, std::nan(""));
  else
    SLAB_FAIL(TypeError, "a string literal is only allowed in comparisons and isin");
  return c;
}

void merge_valid(EvalColumn& out, const EvalColumn& a, const EvalColumn& b, std::size_t n) {
  if (a.valid.empty() && b.valid.empty()) return;
  out.valid.assign(n, 1);
  for (std::size_t i = 0; i < n; ++i) out.valid[i] = (a.valid.empty() || a.valid[i]) && (b.valid.empty() || b.valid[i]);
}

// Compare a string column with a string literal via the sorted dictionary.
EvalColumn compare_string_literal(const EvalColumn& c, ExprOp op, const std::string& v, std::size_t n) {
  const auto& d = *c.dictionary;
  auto lb = static_cast<std::int32_t>(std::lower_bound(d.begin(), d.end(), v) - d.begin());
  auto ub = static_cast<std::int32_t>(std::upper_bound(d.begin(), d.end(), v) - d.begin());
  bool present = ub > lb;
  EvalColumn out;
  out.type = ElementType::boolean;
  out.bools.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (null_at(c, i)) {
      out.bools[i] = op == ExprOp::ne;
      continue;
    }
    std::int32_t k = c.codes[i];
    bool r = false;
    switch (op) {
      case ExprOp::eq:
        r = present && k == lb;
        break;
      case ExprOp::ne:
        r = !(present && k == lb);
        break;
      case ExprOp::lt:
        r = k < lb;
        break;
      case ExprOp::le:
        r = k < ub;
        break;
      case ExprOp::gt:
        r = k >= ub;
        break;
      case ExprOp::ge:
        r = k >= lb;
        break;
      default:
        break;
    }
    out.bools[i] = r;
  }
  return out;
}

ExprOp flip(ExprOp op) {
  switch (op) {
    case ExprOp::lt:
      return ExprOp::gt;
    case ExprOp::le:
      return ExprOp::ge;
    case ExprOp::gt:
      return ExprOp::lt;
    case ExprOp::ge:
      return ExprOp::le;
    default:
      return op;
  }
}

template <class T>
bool cmp(ExprOp op, T a, T b) {
  switch (op) {
    case ExprOp::eq:
      return a == b;
    case ExprOp::ne:
      return a != b;
    case ExprOp::lt:
      return a < b;
    case ExprOp::le:
      return a <= b;
    case ExprOp::gt:
      return a > b;
    case ExprOp::ge:
      return a >= b;
    default:
      return false;
  }
}

EvalColumn eval(const Expr& e, const Ctx& cx) {
  const ExprNode& nd = e.node();
  const std::size_t n = cx.n;
  if (nd.op == ExprOp::column) {
    std::size_t i = cx.schema.index_of(nd.column);
    EvalColumn c;
    c.type = cx.schema.type(i);
    if (n) {
      switch (c.type) {
        case ElementType::int64:
        case ElementType::timestamp: {
          auto s = cx.batch.column<std::int64_t>(i);
          c.ints.assign(s.begin(), s.end());
          break;
        }
        case ElementType::float64: {
          auto s = cx.batch.column<double>(i);
          c.floats.assign(s.begin(), s.end());
          break;
        }
        case ElementType::boolean: {
          auto s = cx.batch.column<std::uint8_t>(i);
          c.bools.assign(s.begin(), s.end());
          break;
        }
        case ElementType::string: {
          auto s = cx.batch.column<std::int32_t>(i);
          c.codes.assign(s.begin(), s.end());
          break;
        }
        default:  // not a column type: a Schema holds none
          break;
      }
      if (const auto* v = cx.batch.valid(i)) c.valid.assign(v, v + n);
    }
    c.dictionary = cx.schema.dictionary(i);
    return c;
  }
  if (nd.op == ExprOp::literal) return literal(nd.value, n);
  if (is_cmp(nd.op)) {
    const Expr& l = nd.args[0];
    const Expr& r = nd.args[1];
    // timestamp vs a string literal: the literal is a timestamp
    if (is_string_literal(r) && l.type(cx.schema) == ElementType::timestamp)
      return eval(make(nd.op, {l, lit(timestamp_literal(r, e))}), cx);
    if (is_string_literal(l) && r.type(cx.schema) == ElementType::timestamp)
      return eval(make(nd.op, {lit(timestamp_literal(l, e)), r}), cx);
    // string vs string literal
    if (r.node().op == ExprOp::literal && std::holds_alternative<std::string>(r.node().value)) {
      auto c = eval(l, cx);
      SLAB_EXPECTS(c.type == ElementType::string, TypeError,
                   "expression " + e.to_string() + ": string literal vs non-string");
      return compare_string_literal(c, nd.op, std::get<std::string>(r.node().value), n);
    }
    if (l.node().op == ExprOp::literal && std::holds_alternative<std::string>(l.node().value)) {
      auto c = eval(r, cx);
      SLAB_EXPECTS(c.type == ElementType::string, TypeError,
                   "expression " + e.to_string() + ": string literal vs non-string");
      return compare_string_literal(c, flip(nd.op), std::get<std::string>(l.node().value), n);
    }
    auto a = eval(l, cx), b = eval(r, cx);
    EvalColumn out;
    out.type = ElementType::boolean;
    out.bools.resize(n);
    bool ints = a.type != ElementType::float64 && b.type != ElementType::float64;
    SLAB_EXPECTS((a.type == ElementType::string) == (b.type == ElementType::string), TypeError,
                 "expression " + e.to_string() + ": cannot compare a string with a number");
    if (a.type == ElementType::string)
      SLAB_EXPECTS(a.dictionary == b.dictionary || (a.dictionary && b.dictionary && *a.dictionary == *b.dictionary),
                   TypeError, "expression " + e.to_string() + ": string columns with different dictionaries");
    for (std::size_t i = 0; i < n; ++i) {
      if (null_at(a, i) || null_at(b, i)) {
        out.bools[i] = nd.op == ExprOp::ne;
      } else if (a.type == ElementType::string) {
        out.bools[i] = cmp(nd.op, a.codes[i], b.codes[i]);
      } else if (ints) {
        out.bools[i] = cmp(nd.op, i64(a, i), i64(b, i));
      } else {
        out.bools[i] = cmp(nd.op, dbl(a, i), dbl(b, i));
      }
    }
    return out;
  }
  if (is_arith(nd.op)) {
    ElementType t = e.type(cx.schema);
    auto a = eval(nd.args[0], cx), b = eval(nd.args[1], cx);
    EvalColumn out;
    out.type = t;
    merge_valid(out, a, b, n);
    if (t == ElementType::float64) {
      out.floats.resize(n);
      for (std::size_t i = 0; i < n; ++i) {
        double x = dbl(a, i), y = dbl(b, i);
        double r = 0;
        switch (nd.op) {
          case ExprOp::add:
            r = x + y;
            break;
          case ExprOp::sub:
            r = x - y;
            break;
          case ExprOp::mul:
            r = x * y;
            break;
          case ExprOp::floordiv:
            r = slab::detail::float_floor_divide(x, y);
            break;
          case ExprOp::mod:
            r = slab::detail::float_mod(x, y);
            break;
          default:
            r = x / y;
            break;
        }
        out.floats[i] = r;
      }
    } else if (nd.op == ExprOp::floordiv || nd.op == ExprOp::mod) {
      out.ints.resize(n);  // x // 0 and x % 0 are 0, as pandas' nullable Int64 (and NumPy) give
      for (std::size_t i = 0; i < n; ++i)
        out.ints[i] = nd.op == ExprOp::floordiv ? slab::detail::int_floor_divide(i64(a, i), i64(b, i))
                                                : slab::detail::int_mod(i64(a, i), i64(b, i));
    } else {
      out.ints.resize(n);
      for (std::size_t i = 0; i < n; ++i) {
        auto x = static_cast<std::uint64_t>(i64(a, i)), y = static_cast<std::uint64_t>(i64(b, i));
        std::uint64_t r = nd.op == ExprOp::add ? x + y : nd.op == ExprOp::sub ? x - y : x * y;  // wraps
        out.ints[i] = static_cast<std::int64_t>(r);
      }
    }
    return out;
  }
  switch (nd.op) {
    case ExprOp::neg:
    case ExprOp::abs: {
      auto a = eval(nd.args[0], cx);
      SLAB_EXPECTS(a.type == ElementType::int64 || a.type == ElementType::float64, TypeError,
                   "expression " + e.to_string() + ": needs a number");
      for (auto& v : a.ints) v = nd.op == ExprOp::neg ? -v : (v < 0 ? -v : v);
      for (auto& v : a.floats) v = nd.op == ExprOp::neg ? -v : std::fabs(v);
      return a;
    }
    case ExprOp::log:
    case ExprOp::exp:
    case ExprOp::sqrt: {
      (void)e.type(cx.schema);
      auto a = eval(nd.args[0], cx);
      EvalColumn out;
      out.type = ElementType::float64;
      out.floats.resize(n);
      for (std::size_t i = 0; i < n; ++i) {
        const double x = null_at(a, i) ? std::nan("") : dbl(a, i);
        out.floats[i] = nd.op == ExprOp::log ? std::log(x) : nd.op == ExprOp::exp ? std::exp(x) : std::sqrt(x);
      }
      return out;
    }
    case ExprOp::round: {
      (void)e.type(cx.schema);
      auto a = eval(nd.args[0], cx);
      const std::int64_t d = std::get<std::int64_t>(nd.value);
      if (a.type == ElementType::float64) {
        // NumPy's algorithm (and so its results): scale, rint (halves to even), unscale.
        const double f = std::pow(10.0, static_cast<double>(d < 0 ? -d : d));
        for (auto& v : a.floats) v = d >= 0 ? std::rint(v * f) / f : std::rint(v / f) * f;
      } else if (d < 0) {
        std::int64_t f = 1;
        for (std::int64_t k = 0; k < -d && f <= INT64_MAX / 10; ++k) f *= 10;
        const bool huge = -d > 18;
        for (auto& v : a.ints) {
          if (huge) {
            v = 0;
            continue;
          }
          std::int64_t q = slab::detail::int_floor_divide(v, f), r = v - q * f;  // 0 <= r < f
          if (2 * static_cast<__int128>(r) > f || (2 * static_cast<__int128>(r) == f && (q & 1))) ++q;
          v = static_cast<std::int64_t>(static_cast<std::uint64_t>(q) * static_cast<std::uint64_t>(f));
        }
      }
      return a;
    }
    case ExprOp::clip: {
      const ElementType t = e.type(cx.schema);
      auto x = eval(nd.args[0], cx), lo = eval(nd.args[1], cx), hi = eval(nd.args[2], cx);
      EvalColumn out;
      out.type = t;
      out.valid = x.valid;
      if (t == ElementType::float64) {
        out.floats.resize(n);
        for (std::size_t i = 0; i < n; ++i) {
          double v = null_at(x, i) ? std::nan("") : dbl(x, i);
          if (!std::isnan(v)) {
            if (!null_at(lo, i) && v < dbl(lo, i)) v = dbl(lo, i);
            if (!null_at(hi, i) && v > dbl(hi, i)) v = dbl(hi, i);
          }
          out.floats[i] = v;
        }
      } else {
        out.ints.resize(n);
        for (std::size_t i = 0; i < n; ++i) {
          std::int64_t v = i64(x, i);
          if (!null_at(x, i)) {
            if (!null_at(lo, i) && v < i64(lo, i)) v = i64(lo, i);
            if (!null_at(hi, i) && v > i64(hi, i)) v = i64(hi, i);
          }
          out.ints[i] = v;
        }
      }
      return out;
    }
    case ExprOp::where: {
      const ElementType t = e.type(cx.schema);
      auto c = eval(nd.args[0], cx), a = eval(nd.args[1], cx), b = eval(nd.args[2], cx);
      EvalColumn out;
      out.type = t;
      std::vector<std::uint8_t> valid(n, 1);
      bool any_null = false;
      if (t == ElementType::float64) out.floats.resize(n);
      if (t == ElementType::boolean) out.bools.resize(n);
      if (t == ElementType::int64 || t == ElementType::timestamp) out.ints.resize(n);
      for (std::size_t i = 0; i < n; ++i) {
        const EvalColumn& s = !null_at(c, i) && c.bools[i] ? a : b;
        const bool null = null_at(s, i);
        if (t == ElementType::float64) {
          out.floats[i] = null ? std::nan("") : dbl(s, i);
        } else if (t == ElementType::boolean) {
          out.bools[i] = null ? 0 : s.bools[i];
        } else {
          out.ints[i] = null ? 0 : i64(s, i);
        }
        if (null && t != ElementType::float64) valid[i] = 0, any_null = true;
      }
      if (any_null) out.valid = std::move(valid);
      return out;
    }
    case ExprOp::str_contains:
    case ExprOp::str_lower:
    case ExprOp::str_len: {
      (void)e.type(cx.schema);
      auto a = eval(nd.args[0], cx);
      const auto& dict = *a.dictionary;
      EvalColumn out;
      std::vector<std::int64_t> per(dict.size());  // each dictionary entry's result
      if (nd.op == ExprOp::str_contains) {
        const std::string& pat = std::get<std::string>(nd.value);
        const bool regex = std::get<bool>(nd.values.at(0));
        std::regex re;
        if (regex) {
          try {
            re = std::regex(pat, std::regex::ECMAScript);
          } catch (const std::regex_error& ex) {
            SLAB_FAIL(InvalidArgument, "expression " + e.to_string() + ": '" + pat +
                                           "' is not a valid regular expression (" + ex.what() + ")");
          }
        }
        for (std::size_t k = 0; k < dict.size(); ++k)
          per[k] = regex ? std::regex_search(dict[k], re) : dict[k].find(pat) != std::string::npos;
        out.type = ElementType::boolean;
        out.bools.resize(n);
      } else if (nd.op == ExprOp::str_len) {
        for (std::size_t k = 0; k < dict.size(); ++k)
          per[k] = static_cast<std::int64_t>(
              std::count_if(dict[k].begin(), dict[k].end(), [](char ch) { return (ch & 0xC0) != 0x80; }));
        out.type = ElementType::int64;
        out.ints.resize(n);
      } else {
        out.dictionary = lowered_dictionary(a.dictionary);
        const auto& low = *out.dictionary;
        for (std::size_t k = 0; k < dict.size(); ++k)
          per[k] = std::lower_bound(low.begin(), low.end(), utf8_lower(dict[k])) - low.begin();
        out.type = ElementType::string;
        out.codes.resize(n);
      }
      std::vector<std::uint8_t> valid(n, 1);
      bool any_null = false;
      for (std::size_t i = 0; i < n; ++i) {
        const bool null = null_at(a, i);
        const std::int64_t v = null ? 0 : per[static_cast<std::size_t>(a.codes[i])];
        if (out.type == ElementType::boolean) out.bools[i] = static_cast<std::uint8_t>(v);
        if (out.type == ElementType::int64) out.ints[i] = v;
        if (out.type == ElementType::string) out.codes[i] = null ? -1 : static_cast<std::int32_t>(v);
        if (null && out.type != ElementType::string) valid[i] = 0, any_null = true;
      }
      if (any_null) out.valid = std::move(valid);
      return out;
    }
    case ExprOp::isnull:
    case ExprOp::notnull: {
      auto a = eval(nd.args[0], cx);
      EvalColumn out;
      out.type = ElementType::boolean;
      out.bools.resize(n);
      for (std::size_t i = 0; i < n; ++i) out.bools[i] = null_at(a, i) == (nd.op == ExprOp::isnull);
      return out;
    }
    case ExprOp::logical_and:
    case ExprOp::logical_or:
    case ExprOp::logical_not: {
      std::vector<EvalColumn> args;
      for (const auto& a : nd.args) {
        args.push_back(eval(a, cx));
        SLAB_EXPECTS(args.back().type == ElementType::boolean, TypeError,
                     "expression " + e.to_string() + ": '&', '|' and '~' need boolean operands");
      }
      EvalColumn out;
      out.type = ElementType::boolean;
      out.bools.resize(n);
      for (std::size_t i = 0; i < n; ++i) {
        bool x = !null_at(args[0], i) && args[0].bools[i];
        if (nd.op == ExprOp::logical_not) {
          out.bools[i] = !x;
        } else {
          bool y = !null_at(args[1], i) && args[1].bools[i];
          out.bools[i] = nd.op == ExprOp::logical_and ? (x && y) : (x || y);
        }
      }
      return out;
    }
    case ExprOp::isin: {
      auto a = eval(nd.args[0], cx);
      EvalColumn out;
      out.type = ElementType::boolean;
      out.bools.assign(n, 0);
      if (a.type == ElementType::string) {
        const std::vector<std::int32_t> codes = isin_codes(nd.values, a.dictionary);
        for (std::size_t i = 0; i < n; ++i)
          out.bools[i] = !null_at(a, i) && std::find(codes.begin(), codes.end(), a.codes[i]) != codes.end();
      } else {
        const std::vector<double> vals = isin_doubles(nd.values);
        for (std::size_t i = 0; i < n; ++i)
          out.bools[i] = !null_at(a, i) && std::find(vals.begin(), vals.end(), dbl(a, i)) != vals.end();
      }
      return out;
    }
    default:
      break;
  }
  SLAB_FAIL(InvalidArgument, "expression " + e.to_string() + ": unsupported");
}

}  // namespace

Dictionary string_dictionary(const Expr& expr, const Schema& schema) {
  const ExprNode& n = expr.node();
  if (n.op == ExprOp::column && schema.type(schema.index_of(n.column)) == ElementType::string)
    return schema.dictionary(schema.index_of(n.column));
  if (n.op == ExprOp::str_lower) return lowered_dictionary(string_dictionary(n.args[0], schema));
  SLAB_FAIL(TypeError, "expression " + expr.to_string() + " is not a string column or its str.lower()");
}

EvalColumn evaluate(const Expr& expr, const BatchView& batch, const Schema& schema) {
  SLAB_EXPECTS(expr.valid(), InvalidArgument, "evaluate: empty expression");
  Ctx cx{batch, schema, static_cast<std::size_t>(batch.nrows())};
  return eval(expr, cx);
}

// ---- compilation for the device interpreter (frame/expr_program.hpp) -------------------------------------

namespace detail {
namespace {

using kernels::ExprKind;
using kernels::ExprStepOp;

/// The step compiler: the same case analysis as eval(), each node one step. Throws CannotCompile where the
/// interpreter does not cover a node; any other exception (an expression the host rejects) also ends in nullopt.
struct CannotCompile {};

ExprKind kind_of(ElementType t) {
  switch (t) {
    case ElementType::int64:
    case ElementType::timestamp:
      return ExprKind::int64;
    case ElementType::float64:
      return ExprKind::float64;
    case ElementType::boolean:
      return ExprKind::boolean;
    case ElementType::string:
      return ExprKind::code;
    default:
      throw CannotCompile{};
  }
}

std::uint8_t compare_index(ExprOp op) {
  return static_cast<std::uint8_t>(static_cast<int>(op) - static_cast<int>(ExprOp::eq));
}

struct Compiler {
  const Schema& schema;
  CompiledExpr& out;

  int push(kernels::ExprStep st, std::uint8_t rule) {
    kernels::ExprProgram& p = out.program;
    if (p.nsteps >= kernels::kMaxExprSteps) throw CannotCompile{};
    p.steps[p.nsteps] = st;
    out.mask_rule.push_back(rule);
    return p.nsteps++;
  }
  std::uint64_t table(const std::vector<std::uint64_t>& t) {
    const std::uint64_t at = out.tables.size();
    out.tables.insert(out.tables.end(), t.begin(), t.end());
    return at;
  }

  int emit(const Expr& e) {
    const ExprNode& nd = e.node();
    kernels::ExprStep st;
    if (nd.op == ExprOp::column) {
      const std::size_t c = schema.index_of(nd.column);
      st.op = ExprStepOp::column;
      st.kind = kind_of(schema.type(c));
      auto it = std::find(out.columns.begin(), out.columns.end(), c);
      if (it == out.columns.end()) {
        if (out.columns.size() >= static_cast<std::size_t>(kernels::kMaxExprColumns)) throw CannotCompile{};
        it = out.columns.insert(out.columns.end(), c);
      }
      st.bits = static_cast<std::uint64_t>(it - out.columns.begin());
      return push(st, 1);
    }
    if (nd.op == ExprOp::literal) {
      st.op = ExprStepOp::literal;
      if (auto* i = std::get_if<std::int64_t>(&nd.value)) {
        st.kind = ExprKind::int64, st.bits = static_cast<std::uint64_t>(*i);
      } else if (auto* d = std::get_if<double>(&nd.value)) {
        st.kind = ExprKind::float64, st.bits = std::bit_cast<std::uint64_t>(*d);
      } else if (auto* b = std::get_if<bool>(&nd.value)) {
        st.kind = ExprKind::boolean, st.bits = *b ? 1 : 0;
      } else if (std::holds_alternative<std::monostate>(nd.value)) {
        st.kind = ExprKind::float64, st.bits = std::bit_cast<std::uint64_t>(std::nan(""));
      } else {
        throw CannotCompile{};  // a bare string literal: the host raises its TypeError
      }
      return push(st, 0);
    }
    if (is_cmp(nd.op)) {
      const Expr& l = nd.args[0];
      const Expr& r = nd.args[1];
      if (is_string_literal(r) && l.type(schema) == ElementType::timestamp)
        return emit(make(nd.op, {l, lit(timestamp_literal(r, e))}));
      if (is_string_literal(l) && r.type(schema) == ElementType::timestamp)
        return emit(make(nd.op, {lit(timestamp_literal(l, e)), r}));
      const bool rs = is_string_literal(r), ls = is_string_literal(l);
      if (rs || ls) {  // compare_string_literal, by the dictionary's bounds of the literal
        const Expr& c = rs ? l : r;
        if (c.type(schema) != ElementType::string) throw CannotCompile{};
        const Dictionary dict = string_dictionary(c, schema);
        const std::string& v = std::get<std::string>((rs ? r : l).node().value);
        st.op = ExprStepOp::compare_codes;
        st.kind = ExprKind::boolean;
        st.sub = compare_index(rs ? nd.op : flip(nd.op));
        st.lo = std::lower_bound(dict->begin(), dict->end(), v) - dict->begin();
        st.hi = std::upper_bound(dict->begin(), dict->end(), v) - dict->begin();
        st.a = static_cast<std::int16_t>(emit(c));
        return push(st, 0);
      }
      const ElementType ta = l.type(schema), tb = r.type(schema);
      if ((ta == ElementType::string) != (tb == ElementType::string)) throw CannotCompile{};
      if (ta == ElementType::string) {
        const Dictionary da = string_dictionary(l, schema), db = string_dictionary(r, schema);
        if (!(da == db || (da && db && *da == *db))) throw CannotCompile{};
      }
      st.op = ExprStepOp::compare;
      st.kind = ExprKind::boolean;
      st.sub = compare_index(nd.op);
      st.mode = ta == ElementType::string ? 0 : (ta != ElementType::float64 && tb != ElementType::float64) ? 1 : 2;
      st.a = static_cast<std::int16_t>(emit(l));
      st.b = static_cast<std::int16_t>(emit(r));
      return push(st, 0);
    }
    if (is_arith(nd.op) || nd.op == ExprOp::floordiv || nd.op == ExprOp::mod) {
      const ElementType t = e.type(schema);
      if (t != ElementType::float64 && t != ElementType::int64 && t != ElementType::timestamp) throw CannotCompile{};
      st.op = ExprStepOp::arith;
      st.kind = kind_of(t);
      // expr.hpp's ExprStepOp::arith numbering: + - * / // %
      st.sub = nd.op == ExprOp::add        ? 0
               : nd.op == ExprOp::sub      ? 1
               : nd.op == ExprOp::mul      ? 2
               : nd.op == ExprOp::floordiv ? 4
               : nd.op == ExprOp::mod      ? 5
                                           : 3;
      st.a = static_cast<std::int16_t>(emit(nd.args[0]));
      st.b = static_cast<std::int16_t>(emit(nd.args[1]));
      return push(st, 3);
    }
    switch (nd.op) {
      case ExprOp::neg:
      case ExprOp::abs: {
        const ElementType t = nd.args[0].type(schema);
        if (t != ElementType::int64 && t != ElementType::float64) throw CannotCompile{};
        st.op = nd.op == ExprOp::neg ? ExprStepOp::neg : ExprStepOp::abs;
        st.kind = kind_of(t);
        st.a = static_cast<std::int16_t>(emit(nd.args[0]));
        return push(st, 2);
      }
      case ExprOp::log:
      case ExprOp::exp:
      case ExprOp::sqrt:
        (void)e.type(schema);
        st.op = ExprStepOp::math;
        st.kind = ExprKind::float64;
        st.sub = nd.op == ExprOp::log ? 0 : nd.op == ExprOp::exp ? 1 : 2;
        st.a = static_cast<std::int16_t>(emit(nd.args[0]));
        return push(st, 0);
      case ExprOp::round: {
        (void)e.type(schema);
        const std::int64_t d = std::get<std::int64_t>(nd.value);
        st.op = ExprStepOp::round;
        st.kind = kind_of(nd.args[0].type(schema));
        st.lo = d;
        st.scale = std::pow(10.0, static_cast<double>(d < 0 ? -d : d));
        st.a = static_cast<std::int16_t>(emit(nd.args[0]));
        return push(st, 2);
      }
      case ExprOp::clip: {
        const ElementType t = e.type(schema);
        if (t != ElementType::float64 && t != ElementType::int64 && t != ElementType::timestamp) throw CannotCompile{};
        st.op = ExprStepOp::clip;
        st.kind = kind_of(t);
        st.a = static_cast<std::int16_t>(emit(nd.args[0]));
        st.b = static_cast<std::int16_t>(emit(nd.args[1]));
        st.c = static_cast<std::int16_t>(emit(nd.args[2]));
        return push(st, 2);
      }
      case ExprOp::where: {
        const ElementType t = e.type(schema);
        if (t == ElementType::string) throw CannotCompile{};
        st.op = ExprStepOp::where;
        st.kind = kind_of(t);
        st.a = static_cast<std::int16_t>(emit(nd.args[0]));
        st.b = static_cast<std::int16_t>(emit(nd.args[1]));
        st.c = static_cast<std::int16_t>(emit(nd.args[2]));
        return push(st, t == ElementType::float64 ? 0 : 4);
      }
      case ExprOp::str_contains:
      case ExprOp::str_lower:
      case ExprOp::str_len: {
        (void)e.type(schema);
        const Dictionary dict = string_dictionary(nd.args[0], schema);
        std::vector<std::uint64_t> per(dict->size());
        if (nd.op == ExprOp::str_contains) {
          const std::string& pat = std::get<std::string>(nd.value);
          const bool regex = std::get<bool>(nd.values.at(0));
          std::regex re;
          if (regex) re = std::regex(pat, std::regex::ECMAScript);  // a bad pattern: the host raises its error
          for (std::size_t k = 0; k < dict->size(); ++k)
            per[k] = regex ? std::regex_search((*dict)[k], re) : (*dict)[k].find(pat) != std::string::npos;
          st.kind = ExprKind::boolean;
        } else if (nd.op == ExprOp::str_len) {
          for (std::size_t k = 0; k < dict->size(); ++k)
            per[k] = static_cast<std::uint64_t>(
                std::count_if((*dict)[k].begin(), (*dict)[k].end(), [](char ch) { return (ch & 0xC0) != 0x80; }));
          st.kind = ExprKind::int64;
        } else {
          const Dictionary low = lowered_dictionary(dict);
          for (std::size_t k = 0; k < dict->size(); ++k)
            per[k] = static_cast<std::uint64_t>(std::lower_bound(low->begin(), low->end(), utf8_lower((*dict)[k])) -
                                                low->begin());
          st.kind = ExprKind::code;
        }
        st.op = ExprStepOp::code_table;
        st.bits = table(per);
        st.a = static_cast<std::int16_t>(emit(nd.args[0]));
        return push(st, st.kind == ExprKind::code ? 0 : 4);
      }
      case ExprOp::isnull:
      case ExprOp::notnull:
        st.op = nd.op == ExprOp::isnull ? ExprStepOp::isnull : ExprStepOp::notnull;
        st.kind = ExprKind::boolean;
        st.a = static_cast<std::int16_t>(emit(nd.args[0]));
        return push(st, 0);
      case ExprOp::logical_and:
      case ExprOp::logical_or:
      case ExprOp::logical_not: {
        for (const auto& a : nd.args)
          if (a.type(schema) != ElementType::boolean) throw CannotCompile{};
        st.op = nd.op == ExprOp::logical_and  ? ExprStepOp::logical_and
                : nd.op == ExprOp::logical_or ? ExprStepOp::logical_or
                                              : ExprStepOp::logical_not;
        st.kind = ExprKind::boolean;
        st.a = static_cast<std::int16_t>(emit(nd.args[0]));
        if (nd.args.size() > 1) st.b = static_cast<std::int16_t>(emit(nd.args[1]));
        return push(st, 0);
      }
      case ExprOp::isin: {
        st.kind = ExprKind::boolean;
        std::vector<std::uint64_t> set;
        if (nd.args[0].type(schema) == ElementType::string) {
          for (std::int32_t code : isin_codes(nd.values, string_dictionary(nd.args[0], schema)))
            set.push_back(static_cast<std::uint64_t>(code));
          std::sort(set.begin(), set.end());
          st.op = ExprStepOp::isin_codes;
        } else {
          std::vector<double> vals = isin_doubles(nd.values);
          std::erase_if(vals, [](double d) { return std::isnan(d); });  // NaN equals nothing
          std::sort(vals.begin(), vals.end());
          for (double d : vals) set.push_back(std::bit_cast<std::uint64_t>(d));
          st.op = ExprStepOp::isin_values;
        }
        st.bits = table(set);
        st.hi = static_cast<std::int64_t>(set.size());
        st.a = static_cast<std::int16_t>(emit(nd.args[0]));
        return push(st, 0);
      }
      default:
        throw CannotCompile{};
    }
  }
};

}  // namespace

std::optional<CompiledExpr> compile_for_device(const Expr& expr, const Schema& schema) {
  if (!expr.valid()) return std::nullopt;
  CompiledExpr out;
  try {
    out.type = expr.type(schema);
    Compiler{schema, out}.emit(expr);
  } catch (...) {  // not covered, or rejected (the host evaluation raises the error)
    return std::nullopt;
  }
  out.program.ncolumns = static_cast<int>(out.columns.size());
  return out;
}

kernels::ExprProgram CompiledExpr::bind(const BatchView& batch) const {
  kernels::ExprProgram p = program;
  for (std::size_t k = 0; k < columns.size(); ++k)
    p.columns[k] = {batch.type(columns[k]), batch.data(columns[k]), batch.valid(columns[k])};
  return p;
}

bool CompiledExpr::has_mask(const BatchView& batch, std::int64_t invalid_rows) const {
  if (batch.nrows() == 0) return false;
  // The last step is the root; rules 2 and 3 follow the operands.
  auto rule_of = [&](auto&& self, int s) -> bool {
    const kernels::ExprStep& st = program.steps[s];
    switch (mask_rule[static_cast<std::size_t>(s)]) {
      case 1:
        return batch.valid(columns[st.bits]) != nullptr;
      case 2:
        return self(self, st.a);
      case 3:
        return self(self, st.a) || self(self, st.b);
      case 4:
        return invalid_rows > 0;
      default:
        return false;
    }
  };
  return rule_of(rule_of, program.nsteps - 1);
}

}  // namespace detail

}  // namespace slab::frame
