#include "slab/frame/expr.hpp"

#include <algorithm>
#include <cmath>

#include "core/floor_divide.hpp"
#include "slab/core/error.hpp"

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
      return static_cast<std::int64_t>(c.floats[i]);
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
            r = detail::float_floor_divide(x, y);
            break;
          case ExprOp::mod:
            r = detail::float_mod(x, y);
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
        out.ints[i] = nd.op == ExprOp::floordiv ? detail::int_floor_divide(i64(a, i), i64(b, i))
                                                : detail::int_mod(i64(a, i), i64(b, i));
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
        std::vector<std::int32_t> codes;
        for (const auto& v : nd.values)
          if (auto* s = std::get_if<std::string>(&v)) {
            auto it = std::lower_bound(a.dictionary->begin(), a.dictionary->end(), *s);
            if (it != a.dictionary->end() && *it == *s)
              codes.push_back(static_cast<std::int32_t>(it - a.dictionary->begin()));
          }
        for (std::size_t i = 0; i < n; ++i)
          out.bools[i] = !null_at(a, i) && std::find(codes.begin(), codes.end(), a.codes[i]) != codes.end();
      } else {
        std::vector<double> vals;
        for (const auto& v : nd.values) {
          if (auto* x = std::get_if<std::int64_t>(&v))
            vals.push_back(static_cast<double>(*x));
          else if (auto* d = std::get_if<double>(&v))
            vals.push_back(*d);
          else if (auto* b = std::get_if<bool>(&v))
            vals.push_back(*b);
        }
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

EvalColumn evaluate(const Expr& expr, const BatchView& batch, const Schema& schema) {
  SLAB_EXPECTS(expr.valid(), InvalidArgument, "evaluate: empty expression");
  Ctx cx{batch, schema, static_cast<std::size_t>(batch.nrows())};
  return eval(expr, cx);
}

}  // namespace slab::frame
