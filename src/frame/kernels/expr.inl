#pragma once
// The composition of expr.hpp: one functor call per row running the program's steps on per-row registers
// (a value and a validity bit per step), then a count of the invalid rows.
#include <thrust/count.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>

#include <cstdint>
#include <string>

#include "array/kernels/elementwise.inl"  // ElemMath: the host functors' floor division, modulo and libm calls
#include "core/kernels/hd.hpp"
#include "core/kernels/scratch.hpp"
#include "frame/kernels/expr.hpp"
#include "slab/core/error.hpp"

namespace slab::frame::kernels {
namespace detail {

using slab::kernels::bits_double;
using slab::kernels::double_bits;

struct ExprRow {
  // The program in backend memory, read through a pointer: held by value (2.7 KB of kernel parameters), the
  // steps' dynamic indexing would make every GPU thread copy it into local memory first.
  const ExprProgram* program;
  ElementType out_type;
  void* out;
  std::uint8_t* out_valid;

  SLAB_HD static bool is_null(ExprKind k, std::uint64_t v, bool ok) {
    if (!ok) return true;
    if (k == ExprKind::float64) return bits_double(v) != bits_double(v);
    if (k == ExprKind::code) return static_cast<std::int64_t>(v) < 0;
    return false;
  }
  /// expr.cpp's dbl() and i64().
  SLAB_HD static double dbl(ExprKind k, std::uint64_t v) {
    if (k == ExprKind::float64) return bits_double(v);
    if (k == ExprKind::boolean) return static_cast<double>(v & 0xff);
    return static_cast<double>(static_cast<std::int64_t>(v));
  }
  SLAB_HD static std::int64_t i64(ExprKind k, std::uint64_t v) {
    if (k == ExprKind::float64) return slab::kernels::cast_value<std::int64_t>(bits_double(v));  // x86's value, not CUDA's
    if (k == ExprKind::boolean) return static_cast<std::int64_t>(v & 0xff);
    return static_cast<std::int64_t>(v);
  }
  template <class T>
  SLAB_HD static bool cmp(std::uint8_t op, T a, T b) {
    switch (op) {
      case 0:
        return a == b;
      case 1:
        return a != b;
      case 2:
        return a < b;
      case 3:
        return a <= b;
      case 4:
        return a > b;
      default:
        return a >= b;
    }
  }
  template <class T>
  SLAB_HD static bool sorted_contains(const T* set, std::int64_t n, T v) {
    std::int64_t lo = 0, hi = n;
    while (lo < hi) {
      const std::int64_t mid = (lo + hi) / 2;
      if (set[mid] < v)
        lo = mid + 1;
      else
        hi = mid;
    }
    return lo < n && set[lo] == v;
  }

  SLAB_HD void operator()(std::int64_t i) const {
    const ExprProgram& p = *program;
    using FMath = slab::kernels::detail::ElemMath<double>;
    using IMath = slab::kernels::detail::ElemMath<std::int64_t>;
    std::uint64_t v[kMaxExprSteps];
    bool ok[kMaxExprSteps];
    for (int s = 0; s < p.nsteps; ++s) {
      const ExprStep& st = p.steps[s];
      const ExprKind ka = st.a >= 0 ? p.steps[st.a].kind : ExprKind::int64;
      const ExprKind kb = st.b >= 0 ? p.steps[st.b].kind : ExprKind::int64;
      const std::uint64_t va = st.a >= 0 ? v[st.a] : 0, vb = st.b >= 0 ? v[st.b] : 0;
      const bool oa = st.a >= 0 ? ok[st.a] : true, ob = st.b >= 0 ? ok[st.b] : true;
      const bool na = st.a >= 0 && is_null(ka, va, oa), nb = st.b >= 0 && is_null(kb, vb, ob);
      std::uint64_t r = 0;
      bool valid = true;
      switch (st.op) {
        case ExprStepOp::column: {
          const ColumnView& c = p.columns[st.bits];
          valid = !c.valid || c.valid[i];
          switch (c.type) {
            case ElementType::boolean:
              r = static_cast<const std::uint8_t*>(c.data)[i];
              break;
            case ElementType::string:
              r = static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<const std::int32_t*>(c.data)[i]));
              break;
            default:
              r = static_cast<const std::uint64_t*>(c.data)[i];
              break;
          }
          break;
        }
        case ExprStepOp::literal:
          r = st.bits;
          break;
        case ExprStepOp::compare: {
          bool x = false;
          if (na || nb)
            x = st.sub == 1;
          else if (st.mode == 0)
            x = cmp(st.sub, static_cast<std::int64_t>(va), static_cast<std::int64_t>(vb));
          else if (st.mode == 1)
            x = cmp(st.sub, i64(ka, va), i64(kb, vb));
          else
            x = cmp(st.sub, dbl(ka, va), dbl(kb, vb));
          r = x;
          break;
        }
        case ExprStepOp::compare_codes: {  // compare_string_literal: lo, hi = lower, upper bound
          bool x = false;
          const std::int64_t k = static_cast<std::int64_t>(va);
          const bool present = st.hi > st.lo;
          if (na) {
            x = st.sub == 1;
          } else {
            switch (st.sub) {
              case 0:
                x = present && k == st.lo;
                break;
              case 1:
                x = !(present && k == st.lo);
                break;
              case 2:
                x = k < st.lo;
                break;
              case 3:
                x = k < st.hi;
                break;
              case 4:
                x = k >= st.hi;
                break;
              default:
                x = k >= st.lo;
                break;
            }
          }
          r = x;
          break;
        }
        case ExprStepOp::arith: {
          valid = oa && ob;
          if (st.kind == ExprKind::float64) {
            const double x = dbl(ka, va), y = dbl(kb, vb);
            double z = 0;
            switch (st.sub) {
              case 0:
                z = x + y;
                break;
              case 1:
                z = x - y;
                break;
              case 2:
                z = x * y;
                break;
              case 4:
                z = FMath::floordiv(x, y);
                break;
              case 5:
                z = FMath::mod(x, y);
                break;
              default:
                z = x / y;
                break;
            }
            r = double_bits(z);
          } else {
            const std::int64_t x = i64(ka, va), y = i64(kb, vb);
            const auto ux = static_cast<std::uint64_t>(x), uy = static_cast<std::uint64_t>(y);
            switch (st.sub) {
              case 0:
                r = ux + uy;
                break;
              case 1:
                r = ux - uy;
                break;
              case 4:
                r = static_cast<std::uint64_t>(IMath::floordiv(x, y));
                break;
              case 5:
                r = static_cast<std::uint64_t>(IMath::mod(x, y));
                break;
              default:
                r = ux * uy;
                break;
            }
          }
          break;
        }
        case ExprStepOp::neg:
        case ExprStepOp::abs: {
          valid = oa;
          if (ka == ExprKind::float64) {  // -x flips the sign bit, fabs clears it (NaN and -0.0 included)
            r = st.op == ExprStepOp::neg ? va ^ (std::uint64_t{1} << 63) : va & ~(std::uint64_t{1} << 63);
          } else {
            const bool flip = st.op == ExprStepOp::neg || static_cast<std::int64_t>(va) < 0;
            r = flip ? std::uint64_t{0} - va : va;
          }
          break;
        }
        case ExprStepOp::math: {
          const double x = na ? bits_double(0x7FF8000000000000ull) : dbl(ka, va);
          r = double_bits(st.sub == 0 ? FMath::log(x) : st.sub == 1 ? FMath::exp(x) : FMath::sqrt(x));
          break;
        }
        case ExprStepOp::round: {
          valid = oa;
          r = va;
          const std::int64_t d = st.lo;
          if (ka == ExprKind::float64) {
            const double x = bits_double(va), f = st.scale;
#if defined(__CUDA_ARCH__)
            r = double_bits(d >= 0 ? ::rint(x * f) / f : ::rint(x / f) * f);
#else
            r = double_bits(d >= 0 ? std::rint(x * f) / f : std::rint(x / f) * f);
#endif
          } else if (ka == ExprKind::int64 && d < 0) {
            if (-d > 18) {
              r = 0;
            } else {
              const auto f = static_cast<std::int64_t>(st.scale);
              const std::int64_t x = static_cast<std::int64_t>(va);
              std::int64_t q = IMath::floordiv(x, f);
              const std::int64_t rem = static_cast<std::int64_t>(static_cast<std::uint64_t>(x) -
                                                                 static_cast<std::uint64_t>(q) * static_cast<std::uint64_t>(f));
              if (rem > f - rem || (rem == f - rem && (q & 1))) ++q;
              r = static_cast<std::uint64_t>(q) * static_cast<std::uint64_t>(f);
            }
          }
          break;
        }
        case ExprStepOp::clip: {
          valid = oa;
          const ExprKind kc = p.steps[st.c].kind;
          const std::uint64_t vc = v[st.c];
          const bool nc = is_null(kc, vc, ok[st.c]);
          if (st.kind == ExprKind::float64) {
            double x = na ? bits_double(0x7FF8000000000000ull) : dbl(ka, va);
            if (x == x) {
              if (!nb && x < dbl(kb, vb)) x = dbl(kb, vb);
              if (!nc && x > dbl(kc, vc)) x = dbl(kc, vc);
            }
            r = double_bits(x);
          } else {
            std::int64_t x = i64(ka, va);
            if (!na) {
              if (!nb && x < i64(kb, vb)) x = i64(kb, vb);
              if (!nc && x > i64(kc, vc)) x = i64(kc, vc);
            }
            r = static_cast<std::uint64_t>(x);
          }
          break;
        }
        case ExprStepOp::where: {
          const bool take_b = !na && (va & 0xff) != 0;
          const int src = take_b ? st.b : st.c;
          const ExprKind ks = p.steps[src].kind;
          const bool null = is_null(ks, v[src], ok[src]);
          if (st.kind == ExprKind::float64) {
            r = null ? 0x7FF8000000000000ull : double_bits(dbl(ks, v[src]));
          } else if (st.kind == ExprKind::boolean) {
            r = null ? 0 : (v[src] & 0xff);
          } else {
            r = null ? 0 : static_cast<std::uint64_t>(i64(ks, v[src]));
          }
          valid = !(null && st.kind != ExprKind::float64);
          break;
        }
        case ExprStepOp::code_table: {
          const std::uint64_t t = na ? 0 : p.tables[st.bits + va];
          if (st.kind == ExprKind::code) {  // a null stays null (-1), or with mode 1 becomes code lo (fillna)
            r = na ? static_cast<std::uint64_t>(st.mode == 1 ? st.lo : std::int64_t{-1}) : t;
          } else {
            r = t;
            valid = !na;
          }
          break;
        }
        case ExprStepOp::isnull:
          r = na;
          break;
        case ExprStepOp::notnull:
          r = !na;
          break;
        case ExprStepOp::logical_and:
        case ExprStepOp::logical_or:
        case ExprStepOp::logical_not: {
          const bool x = !na && (va & 0xff) != 0;
          if (st.op == ExprStepOp::logical_not) {
            r = !x;
          } else {
            const bool y = !nb && (vb & 0xff) != 0;
            r = st.op == ExprStepOp::logical_and ? (x && y) : (x || y);
          }
          break;
        }
        case ExprStepOp::isin_codes:
          r = !na && sorted_contains(reinterpret_cast<const std::int64_t*>(p.tables + st.bits), st.hi,
                                     static_cast<std::int64_t>(va));
          break;
        case ExprStepOp::cast: {  // ops.cpp's astype, value for value
          valid = oa;
          const bool isf = ka == ExprKind::float64;
          const double d = bits_double(va);
          const std::int64_t x = ka == ExprKind::boolean ? static_cast<std::int64_t>(va & 0xff) : static_cast<std::int64_t>(va);
          if (st.kind == ExprKind::float64) {
            r = double_bits(isf ? d : static_cast<double>(x));
          } else if (st.kind == ExprKind::boolean) {
            r = isf ? (d != 0) : (x != 0);
          } else if (isf && d != d) {
            valid = false;
            r = 0;
          } else {
            r = static_cast<std::uint64_t>(isf ? slab::kernels::cast_value<std::int64_t>(d) : x);
          }
          break;
        }
        case ExprStepOp::isin_values: {
          bool x = false;
          if (!na) {
            const double d = dbl(ka, va);
            const std::uint64_t* set = p.tables + st.bits;
            std::int64_t lo = 0, hi = st.hi;
            while (lo < hi) {
              const std::int64_t mid = (lo + hi) / 2;
              if (bits_double(set[mid]) < d)
                lo = mid + 1;
              else
                hi = mid;
            }
            x = lo < st.hi && bits_double(set[lo]) == d;
          }
          r = x;
          break;
        }
      }
      v[s] = r;
      ok[s] = valid;
    }
    const int last = p.nsteps - 1;
    out_valid[i] = ok[last] ? 1 : 0;
    switch (out_type) {
      case ElementType::boolean:
        static_cast<std::uint8_t*>(out)[i] = static_cast<std::uint8_t>(v[last] & 0xff);
        break;
      case ElementType::string:
        static_cast<std::int32_t*>(out)[i] = static_cast<std::int32_t>(static_cast<std::int64_t>(v[last]));
        break;
      default:
        static_cast<std::uint64_t*>(out)[i] = v[last];
        break;
    }
  }
};

struct IsInvalid {
  SLAB_HD bool operator()(std::uint8_t b) const { return b == 0; }
};

}  // namespace detail

template <class B>
std::int64_t ExprKernels<B>::evaluate(const Exec& exec, const ExprProgram& program, std::int64_t n,
                                      ElementType out_type, void* out, std::uint8_t* valid) {
  SLAB_EXPECTS(program.nsteps >= 1 && program.nsteps <= kMaxExprSteps && program.ncolumns <= kMaxExprColumns,
               InvalidArgument, "frame expression kernels: " + std::to_string(program.nsteps) + " steps (1 to " +
                                    std::to_string(kMaxExprSteps) + ")");
  if (n <= 0) return 0;
  B b(exec);
  slab::kernels::Scratch<ExprProgram, B> on_backend(b, 1);
  b.to_backend(on_backend.get(), &program, sizeof(ExprProgram));
  thrust::counting_iterator<std::int64_t> i(0);
  thrust::for_each(b.policy(), i, i + n, detail::ExprRow{on_backend.get(), out_type, out, valid});
  return thrust::count_if(b.policy(), valid, valid + n, detail::IsInvalid{});
}

}  // namespace slab::frame::kernels
