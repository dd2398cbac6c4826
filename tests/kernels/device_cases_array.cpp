// The array layer's device cases (device_cases.hpp): creation, reductions, elementwise programs, layout; and
// the list of all cases, the GPU test's sizes and the copy-bandwidth reference.
#include "device_case_util.hpp"

namespace kernel_check {
namespace {

using namespace util;

// ---- arrays -----------------------------------------------------------------------------------------------

Outcome creation(I64 n, const Options& opt, bool normal) {
  Outcome o;
  const sk::BlockExtent e{1000, 0, n, 1};
  std::vector<double> ref(static_cast<std::size_t>(n));
  if (normal)
    sk::CreationKernels<Reference>::normal(kExec, 77, 1.0, 2.0, e, 1, ref.data());
  else
    sk::CreationKernels<Reference>::uniform(kExec, 77, -1.0, 3.0, e, 1, ref.data());
  Dev<double> d(static_cast<std::size_t>(n));
  auto run = [&] {
    if (normal)
      sk::CreationKernels<Device>::normal(kExec, 77, 1.0, 2.0, e, 1, d.get());
    else
      sk::CreationKernels<Device>::uniform(kExec, 77, -1.0, 3.0, e, 1, d.get());
  };
  run();
  const auto a = d.host();
  run();
  compare(o, opt, normal ? "normal" : "uniform", ref, a, d.host());
  o.seconds = timed(opt, run);
  o.bytes = 8.0 * static_cast<double>(n);
  return o;
}

template <class T>
Outcome reductions(I64 n, const Options& opt) {
  Outcome o;
  // Chunks of 2^20 elements (the device's natural unit; the host's Layout picks its own chunk).
  const I64 chunk = 1 << 20;
  std::vector<T> x(static_cast<std::size_t>(n));
  for (I64 i = 0; i < n; ++i) {
    const U64 r = hh(70, i);
    if constexpr (std::is_integral_v<T>)
      x[i] = static_cast<T>(r % 2001) - 1000;
    else
      x[i] = r % 4099 == 0   ? std::numeric_limits<T>::quiet_NaN()
             : r % 8191 == 5 ? (r % 2 ? -1 : 1) * std::numeric_limits<T>::infinity()  // the one-value-at-a-time tiles
                             : static_cast<T>(static_cast<double>(r % 100000) * 1e-3);
  }
  const Dev<T> d(x);
  std::vector<const T*> hp, dp;
  std::vector<I64> sizes;
  std::vector<sk::ChunkPlace> places;
  for (I64 c0 = 0; c0 < n; c0 += chunk) {
    hp.push_back(x.data() + c0);
    dp.push_back(d.get() + c0);
    sizes.push_back(std::min(chunk, n - c0));
    places.push_back({c0, 0, 1});
  }
  const int nc = static_cast<int>(sizes.size());
  std::vector<sk::StatsPartial<T>> rs(nc), as(nc), bs(nc);
  std::vector<sk::SumPartial<T>> rsum(nc), asum(nc), bsum(nc);
  std::vector<sk::ArgPartial<T>> rarg(nc), aarg(nc), barg(nc);
  sk::ReductionKernels<Reference, T>::stats(kExec, hp.data(), sizes.data(), nc, rs.data());
  sk::ReductionKernels<Reference, T>::sum(kExec, hp.data(), sizes.data(), nc, rsum.data());
  sk::ReductionKernels<Reference, T>::argminmax(kExec, hp.data(), sizes.data(), places.data(), nc, 1, rarg.data());
  auto run = [&](auto& s, auto& sum, auto& arg) {
    sk::ReductionKernels<Device, T>::stats(kExec, dp.data(), sizes.data(), nc, s.data());
    sk::ReductionKernels<Device, T>::sum(kExec, dp.data(), sizes.data(), nc, sum.data());
    sk::ReductionKernels<Device, T>::sum_squares(kExec, dp.data(), sizes.data(), nc, sum.data());
    sk::ReductionKernels<Device, T>::count_nonzero(kExec, dp.data(), sizes.data(), nc, sum.data());
    sk::ReductionKernels<Device, T>::argminmax(kExec, dp.data(), sizes.data(), places.data(), nc, 1, arg.data());
  };
  run(as, asum, aarg);
  run(bs, bsum, barg);
  // Field by field (the structs have padding): every field's bits.
  auto bits = [](auto x) {
    U64 b = 0;
    std::memcpy(&b, &x, sizeof x);
    return b;
  };
  auto stats_fields = [&](const std::vector<sk::StatsPartial<T>>& v) {
    std::vector<U64> f;
    for (const auto& p : v)
      f.insert(f.end(), {bits(p.n), bits(p.nf), bits(p.sum), bits(p.mean), bits(p.m2), bits(p.min), bits(p.max),
                         bits(p.nan), bits(p.pinf), bits(p.ninf)});
    return f;
  };
  auto arg_fields = [&](const std::vector<sk::ArgPartial<T>>& v) {
    std::vector<U64> f;
    for (const auto& p : v) f.insert(f.end(), {bits(p.min), bits(p.max), bits(p.imin), bits(p.imax), bits(p.inan)});
    return f;
  };
  compare(o, opt, "stats", stats_fields(rs), stats_fields(as), stats_fields(bs));
  compare(o, opt, "argminmax", arg_fields(rarg), arg_fields(aarg), arg_fields(barg));
  // reduce_axis: the first rows * 7 values as a rows x 7 matrix, a partial per row and per column.
  const I64 cols = 7, rows = n / cols;
  std::vector<sk::StatsPartial<T>> rrow(rows), arow(rows), brow(rows), rcol(cols), acol(cols), bcol(cols);
  sk::ReductionKernels<Reference, T>::row_stats(kExec, x.data(), rows, cols, rrow.data());
  sk::ReductionKernels<Reference, T>::col_stats(kExec, x.data(), rows, cols, rcol.data());
  for (auto* p : {&arow, &brow}) sk::ReductionKernels<Device, T>::row_stats(kExec, d.get(), rows, cols, p->data());
  for (auto* p : {&acol, &bcol}) sk::ReductionKernels<Device, T>::col_stats(kExec, d.get(), rows, cols, p->data());
  compare(o, opt, "row_stats", stats_fields(rrow), stats_fields(arow), stats_fields(brow));
  compare(o, opt, "col_stats", stats_fields(rcol), stats_fields(acol), stats_fields(bcol));
  for (int axis : {0, 1}) {
    const I64 lines = axis == 0 ? cols : rows;
    std::vector<sk::ArgPartial<T>> rl(lines), al(lines), bl(lines);
    const bool max = axis == 1;
    sk::ReductionKernels<Reference, T>::arg_lines(kExec, x.data(), rows, cols, axis, max, 5, rl.data());
    for (auto* p : {&al, &bl})
      sk::ReductionKernels<Device, T>::arg_lines(kExec, d.get(), rows, cols, axis, max, 5, p->data());
    compare(o, opt, axis == 0 ? "arg_lines.axis0" : "arg_lines.axis1", arg_fields(rl), arg_fields(al), arg_fields(bl));
  }
  // sum: the device wrote sum_squares and count_nonzero on top; recompute sum alone for the comparison.
  sk::ReductionKernels<Device, T>::sum(kExec, dp.data(), sizes.data(), nc, asum.data());
  std::vector<sk::ReduceAcc<T>> rv, av;
  for (int c = 0; c < nc; ++c) rv.push_back(rsum[c].sum), av.push_back(asum[c].sum);
  compare(o, opt, "sum", rv, av, av);
  // nansum / nanmean: the same lanes and tiles with the NaN skipped, and the count of the rest.
  std::vector<sk::SumPartial<T>> rnan(nc), anan(nc), bnan(nc);
  sk::ReductionKernels<Reference, T>::nansum(kExec, hp.data(), sizes.data(), nc, rnan.data());
  sk::ReductionKernels<Device, T>::nansum(kExec, dp.data(), sizes.data(), nc, anan.data());
  sk::ReductionKernels<Device, T>::nansum(kExec, dp.data(), sizes.data(), nc, bnan.data());
  auto nan_fields = [&](const std::vector<sk::SumPartial<T>>& v) {
    std::vector<U64> f;
    for (const auto& p : v) f.insert(f.end(), {bits(p.sum), bits(p.dsum), bits(p.n)});
    return f;
  };
  compare(o, opt, "nansum", nan_fields(rnan), nan_fields(anan), nan_fields(bnan));
  o.seconds =
      timed(opt, [&] { sk::ReductionKernels<Device, T>::stats(kExec, dp.data(), sizes.data(), nc, as.data()); });
  o.bytes = static_cast<double>(n) * sizeof(T);
  return o;
}

// cumsum's scans: integers (wrapping) exact in any order; floats that are not exactly summable, which both
// backends add in ordered_scan.inl's fixed order, so the device must give the reference's bits every run.
template <class T, class S>
Outcome scan(I64 n, const Options& opt) {
  Outcome o;
  std::vector<T> x(static_cast<std::size_t>(n));
  for (I64 i = 0; i < n; ++i)
    x[i] = std::is_floating_point_v<T> ? static_cast<T>(static_cast<double>(hh(72, i) % 100000) * 1e-3 - 50.0)
                                       : static_cast<T>(static_cast<I64>(hh(72, i) % 3) - 1);
  if constexpr (std::is_same_v<T, std::int64_t>)
    if (n > 2) x[0] = std::numeric_limits<T>::max(), x[1] = 5;  // the running sum wraps, as NumPy's
  std::vector<S> ref(static_cast<std::size_t>(n));
  sk::ScanKernels<Reference, T, S>::prefix(kExec, x.data(), n, ref.data());
  sk::ScanKernels<Reference, T, S>::add_offset(kExec, ref.data(), n, S(7), ref.data());
  const Dev<T> d(x);
  Dev<S> out(static_cast<std::size_t>(n));
  auto run = [&] {
    sk::ScanKernels<Device, T, S>::prefix(kExec, d.get(), n, out.get());
    sk::ScanKernels<Device, T, S>::add_offset(kExec, out.get(), n, S(7), out.get());
  };
  run();
  const auto a = out.host();
  run();
  compare(o, opt, "cumsum", ref, a, out.host());
  o.seconds = timed(opt, run);
  o.bytes = static_cast<double>(n) * (sizeof(T) + 2 * sizeof(S));
  return o;
}

Outcome elementwise(I64 n, const Options& opt) {
  Outcome o;
  const std::vector<double> a = mixed(n, 80), b = exact(n, 81);
  using E = sk::ElemOp;
  sk::ElemProgram<double> p;
  const sk::ElemInstr code[] = {{E::leaf, 0}, {E::scalar, 0}, {E::mul, 0},  {E::leaf, 1}, {E::add, 0}, {E::abs, 0},
                                {E::sqrt, 0}, {E::leaf, 0},   {E::leaf, 1}, {E::max, 0},  {E::div, 0}};
  std::copy(std::begin(code), std::end(code), p.code);
  p.size = 11;
  p.scalars[0] = 2.0;
  p.nscalars = 1;
  p.nleaves = 2;
  p.leaves[0] = {a.data(), 1, 0};
  p.leaves[1] = {b.data(), 1, 0};
  std::vector<double> ref(static_cast<std::size_t>(n));
  sk::ElementwiseKernels<Reference, double>::run(kExec, p, n, 1, ref.data());
  const Dev<double> da(a), db(b);
  p.leaves[0].data = da.get();
  p.leaves[1].data = db.get();
  Dev<double> d(static_cast<std::size_t>(n));
  auto run = [&] { sk::ElementwiseKernels<Device, double>::run(kExec, p, n, 1, d.get()); };
  run();
  const auto x = d.host();
  run();
  compare(o, opt, "sqrt(|2a + b|) / max(a, b)", ref, x, d.host());
  o.seconds = timed(opt, run);
  o.bytes = 24.0 * static_cast<double>(n);
  return o;
}

// astype's cast leaves (every source type into a float64 and an int32 program, NaN, infinities and values out of
// int32's range included) and int32 arithmetic, with cast_hd.hpp's rule on both sides.
Outcome casts(I64 n, const Options& opt) {
  Outcome o;
  const std::vector<double> a = mixed(n, 82);
  std::vector<double> wide(static_cast<std::size_t>(n));
  std::vector<float> f(static_cast<std::size_t>(n)), g(static_cast<std::size_t>(n));
  std::vector<std::int32_t> i32(static_cast<std::size_t>(n));
  const std::vector<I64> i64 = ints(n, 83, 1 << 30, -(1 << 29));
  for (I64 i = 0; i < n; ++i) {
    const U64 r = hh(84, i);
    wide[i] = r % 7 == 0    ? std::numeric_limits<double>::infinity()
              : r % 11 == 0 ? std::numeric_limits<double>::quiet_NaN()
                            : static_cast<double>(r % 6000000001) - 3e9;
    f[i] = static_cast<float>(a[i] * 3.5);
    g[i] = static_cast<float>(static_cast<double>(r % 200001) - 100000.0) * 0.75f;  // finite: no wrap below
    i32[i] = static_cast<std::int32_t>(static_cast<std::uint32_t>(r >> 32));
  }
  using E = sk::ElemOp;
  using S = sk::ElemSource;
  // float64: f64(i32) * f64(f32) + f64(i64)
  sk::ElemProgram<double> pd;
  const sk::ElemInstr cd[] = {{E::cast_leaf, 0}, {E::cast_leaf, 1}, {E::mul, 0}, {E::cast_leaf, 2}, {E::add, 0}};
  std::copy(std::begin(cd), std::end(cd), pd.code);
  pd.size = 5;
  pd.ncast_leaves = 3;
  // int32: floordiv(i32(wide), -3) + mod(i32 leaf, 5) - i32(g) (NaN, infinities and out of range -> INT32_MIN)
  sk::ElemProgram<std::int32_t> pi;
  const sk::ElemInstr ci[] = {{E::cast_leaf, 0}, {E::scalar, 0}, {E::floordiv, 0},  {E::leaf, 0}, {E::scalar, 1},
                              {E::mod, 0},       {E::add, 0},    {E::cast_leaf, 1}, {E::sub, 0}};
  std::copy(std::begin(ci), std::end(ci), pi.code);
  pi.size = 9;
  pi.scalars[0] = -3, pi.scalars[1] = 5, pi.nscalars = 2;
  pi.nleaves = 1, pi.ncast_leaves = 2;
  auto wire = [&](const std::int32_t* pi32, const float* pf, const I64* p64, const double* pw, const float* pg) {
    pd.cast_leaves[0] = {pi32, 1, 0, S::int32};
    pd.cast_leaves[1] = {pf, 1, 0, S::float32};
    pd.cast_leaves[2] = {p64, 1, 0, S::int64};
    pi.cast_leaves[0] = {pw, 1, 0, S::float64};
    pi.cast_leaves[1] = {pg, 1, 0, S::float32};
    pi.leaves[0] = {pi32, 1, 0};
  };
  wire(i32.data(), f.data(), i64.data(), wide.data(), g.data());
  std::vector<double> rd(static_cast<std::size_t>(n));
  std::vector<std::int32_t> ri(static_cast<std::size_t>(n));
  sk::ElementwiseKernels<Reference, double>::run(kExec, pd, n, 1, rd.data());
  sk::ElementwiseKernels<Reference, std::int32_t>::run(kExec, pi, n, 1, ri.data());
  const Dev<std::int32_t> d32(i32);
  const Dev<float> df(f);
  const Dev<I64> d64(i64);
  const Dev<double> dw(wide);
  const Dev<float> dg(g);
  wire(d32.get(), df.get(), d64.get(), dw.get(), dg.get());
  Dev<double> od(static_cast<std::size_t>(n));
  Dev<std::int32_t> oi(static_cast<std::size_t>(n));
  auto run = [&] {
    sk::ElementwiseKernels<Device, double>::run(kExec, pd, n, 1, od.get());
    sk::ElementwiseKernels<Device, std::int32_t>::run(kExec, pi, n, 1, oi.get());
  };
  run();
  const auto xd = od.host();
  const auto xi = oi.host();
  run();
  compare(o, opt, "f64(i32) * f64(f32) + f64(i64)", rd, xd, od.host());
  compare(o, opt, "i32(f64) // -3 + i32 % 5 - i32(f32)", ri, xi, oi.host());
  o.seconds = timed(opt, run);
  o.bytes = 40.0 * static_cast<double>(n);
  // int64 libm calls and powers through double: sqrt of negatives (NaN), exp past 2^63 and powers past it must
  // come back as cast_hd.hpp's INT64_MIN, x86's value (a bare conversion saturates on a GPU, or gives 0 for NaN).
  std::vector<I64> e64(static_cast<std::size_t>(n));
  for (I64 i = 0; i < n; ++i) e64[i] = static_cast<I64>(hh(85, i) % 121) - 60;
  sk::ElemProgram<I64> pl;
  const sk::ElemInstr cl[] = {{E::leaf, 0}, {E::sqrt, 0}, {E::leaf, 0}, {E::exp, 0}, {E::min, 0},
                              {E::leaf, 0}, {E::leaf, 0}, {E::pow, 0},  {E::min, 0}};  // min: no overflow
  std::copy(std::begin(cl), std::end(cl), pl.code);
  pl.size = 9;
  pl.nleaves = 1;
  pl.leaves[0] = {e64.data(), 1, 0};
  std::vector<I64> rl(static_cast<std::size_t>(n));
  sk::ElementwiseKernels<Reference, I64>::run(kExec, pl, n, 1, rl.data());
  const Dev<I64> de(e64);
  pl.leaves[0].data = de.get();
  Dev<I64> ol(static_cast<std::size_t>(n));
  sk::ElementwiseKernels<Device, I64>::run(kExec, pl, n, 1, ol.get());
  const auto xl = ol.host();
  sk::ElementwiseKernels<Device, I64>::run(kExec, pl, n, 1, ol.get());
  compare(o, opt, "min(sqrt(i64), exp(i64), i64 ** i64) (int64 through double)", rl, xl, ol.host());
  return o;
}

Outcome layout(I64 n, const Options& opt) {
  Outcome o;
  const I64 cols = 1000, rows = std::max<I64>(n / cols, 1);
  std::vector<double> x(static_cast<std::size_t>(rows * cols));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<double>(hh(90, static_cast<I64>(i)));
  std::vector<double> rt(x.size()), rc(static_cast<std::size_t>(rows * (cols - 2)));
  sk::LayoutKernels<Reference, double>::transpose(kExec, x.data(), rows, cols, rt.data());
  sk::LayoutKernels<Reference, double>::copy_2d(kExec, x.data() + 1, cols, rows, cols - 2, rc.data(), cols - 2);
  const Dev<double> dx(x);
  Dev<double> dt(x.size()), dc(rc.size());
  auto run = [&] {
    sk::LayoutKernels<Device, double>::transpose(kExec, dx.get(), rows, cols, dt.get());
    sk::LayoutKernels<Device, double>::copy_2d(kExec, dx.get() + 1, cols, rows, cols - 2, dc.get(), cols - 2);
  };
  run();
  const auto ta = dt.host();
  const auto ca = dc.host();
  run();
  compare(o, opt, "transpose", rt, ta, dt.host());
  compare(o, opt, "copy_2d", rc, ca, dc.host());
  o.seconds = timed(opt, run);
  o.bytes = 32.0 * static_cast<double>(rows * cols);
  return o;
}

// compress (compress.cpp): count_selected, then select of the chosen items, for each element size: doubles (NaN,
// -0.0) item by item, int64 rows of 3 (their extremes), floats in pairs; the mask's non-zero entries include
// INT64_MIN, -1 and INT64_MAX.
template <class T>
void compress_one(I64 n, const Options& opt, I64 unit, U64 seed, Outcome& o) {
  const I64 items = n;
  std::vector<I64> mask(static_cast<std::size_t>(items));
  const I64 picks[6] = {1, -1, std::numeric_limits<I64>::min(), std::numeric_limits<I64>::max(), 2, 1};
  for (I64 t = 0; t < items; ++t) {
    const U64 r = hh(seed, t);
    mask[t] = r % 2 ? 0 : picks[r / 2 % 6];
  }
  const std::vector<double> m = mixed(items * unit, seed + 1);
  std::vector<T> x(static_cast<std::size_t>(items * unit));
  for (std::size_t i = 0; i < x.size(); ++i) {
    if constexpr (std::is_integral_v<T>) {
      const U64 r = hh(seed + 2, static_cast<I64>(i));
      x[i] = r % 13 == 0   ? std::numeric_limits<T>::min()
             : r % 13 == 1 ? std::numeric_limits<T>::max()
                           : static_cast<T>(r);
    } else {
      x[i] = static_cast<T>(m[i]);
    }
  }
  using RL = sk::LayoutKernels<Reference, T>;
  using DL = sk::LayoutKernels<Device, T>;
  const I64 rk = RL::count_selected(kExec, mask.data(), items);
  std::vector<T> ref(static_cast<std::size_t>(rk * unit));
  RL::select(kExec, x.data(), mask.data(), items, unit, ref.data());
  const Dev<I64> dm(mask);
  const Dev<T> dx(x);
  Dev<T> out(static_cast<std::size_t>(items * unit));
  I64 k = 0;
  auto run = [&] {
    k = DL::count_selected(kExec, dm.get(), items);
    DL::select(kExec, dx.get(), dm.get(), items, unit, out.get());
  };
  run();
  const I64 ka = k;
  const auto a = out.host(static_cast<std::size_t>(k * unit));
  run();
  const std::string what = std::to_string(sizeof(T)) + "-byte items of " + std::to_string(unit);
  compare(o, opt, "count_selected (" + what + ")", std::vector<I64>{rk}, std::vector<I64>{ka}, std::vector<I64>{k});
  compare(o, opt, "select (" + what + ")", ref, a, out.host(static_cast<std::size_t>(k * unit)));
  if (std::is_same_v<T, double>) o.seconds = timed(opt, run);
  o.bytes += static_cast<double>(items) * (8 + 8) + static_cast<double>(items * unit) * sizeof(T);
}

Outcome compress(I64 n, const Options& opt) {
  Outcome o;
  compress_one<double>(n, opt, 1, 95, o);
  compress_one<I64>(n, opt, 3, 96, o);
  compress_one<float>(n, opt, 2, 97, o);
  return o;
}

// full, arange, linspace and eye (array.cpp's created): each formula for each element type, bitwise. A 1-D chunk of n
// elements at row 1000 of its array: full of -0.0, NaN, INT64_MIN or -7; arange through 0 (integers truncate toward
// it), past 2^31 (at the chunk's 1197th element) and past 2^63 (at its 3011th): the integer types' lowest there, as
// astype; linspace to 1/3 with its exact endpoint (the chunk ends the array), and without, to 1e10. A 2-D chunk of
// about n elements (8 columns from row 5, column 3) of eye with diagonal -2.
template <class T>
void pattern_one(I64 n, const Options& opt, Outcome& o) {
  using P = sk::CreationPattern;
  const I64 row0 = 1000, num = row0 + n;
  std::vector<std::pair<const char*, P>> patterns;
  if constexpr (std::is_same_v<T, double>)
    patterns.emplace_back("full", P::constant_of(-0.0));
  else if constexpr (std::is_same_v<T, float>)
    patterns.emplace_back("full", P::constant_of(std::numeric_limits<float>::quiet_NaN()));
  else if constexpr (std::is_same_v<T, I64>)
    patterns.emplace_back("full", P::constant_of(std::numeric_limits<I64>::min()));
  else
    patterns.emplace_back("full", P::constant_of(std::int32_t{-7}));
  auto arange = [](double start, double step) {
    P p;
    p.kind = sk::PatternKind::arange;
    p.start = start, p.step = step;
    return p;
  };
  patterns.emplace_back("arange", arange(-102.5, 0.1));
  patterns.emplace_back("arange past int32", arange(2147482000.5, 0.75));
  patterns.emplace_back("arange past int64", arange(2147483000.5, 2.3e15));
  for (bool endpoint : {true, false}) {
    P p;
    p.kind = sk::PatternKind::linspace;
    p.start = endpoint ? -1.0 : 0.0, p.stop = endpoint ? 1.0 / 3 : 1e10, p.num = num, p.endpoint = endpoint;
    const I64 div = endpoint ? num - 1 : num;
    p.step = div > 0 ? (p.stop - p.start) / static_cast<double>(div) : 0.0;
    patterns.emplace_back(endpoint ? "linspace with endpoint" : "linspace without endpoint", p);
  }
  P eye;
  eye.kind = sk::PatternKind::eye;
  eye.diagonal = -2;
  patterns.emplace_back("eye", eye);
  for (const auto& [name, p] : patterns) {
    const sk::BlockExtent e =
        p.kind == sk::PatternKind::eye ? sk::BlockExtent{5, 3, (n + 7) / 8, 8} : sk::BlockExtent{row0, 0, n, 1};
    const auto size = static_cast<std::size_t>(e.rows * e.cols);
    std::vector<T> ref(size);
    sk::CreationKernels<Reference>::pattern(kExec, p, e, ref.data());
    Dev<T> out(size);
    auto run = [&] { sk::CreationKernels<Device>::pattern(kExec, p, e, out.get()); };
    run();
    const auto a = out.host();
    run();
    compare(o, opt,
            std::string(name) + " (" + std::to_string(sizeof(T)) + "-byte " +
                (std::is_integral_v<T> ? "int" : "float") + ")",
            ref, a, out.host());
    if (std::is_same_v<T, double> && p.kind == sk::PatternKind::arange) o.seconds = timed(opt, run);
    o.bytes += static_cast<double>(size * sizeof(T));
  }
}

Outcome pattern(I64 n, const Options& opt) {
  Outcome o;
  pattern_one<double>(n, opt, o);
  pattern_one<float>(n, opt, o);
  pattern_one<I64>(n, opt, o);
  pattern_one<std::int32_t>(n, opt, o);
  return o;
}

}  // namespace

std::vector<Case> frame_cases();

std::vector<Case> cases() {
  std::vector<Case> all = frame_cases();
  const std::vector<Case> arrays{
      {"array.creation.uniform", [](std::int64_t n, const Options& o) { return creation(n, o, false); }},
      {"array.creation.normal", [](std::int64_t n, const Options& o) { return creation(n, o, true); }},
      {"array.reduction.float64", reductions<double>},
      {"array.reduction.float32", reductions<float>},
      {"array.reduction.int64", reductions<std::int64_t>},
      {"array.reduction.int32", reductions<std::int32_t>},
      {"array.scan.float64", scan<double, double>},
      {"array.scan.float32", scan<float, float>},
      {"array.scan.int32", scan<std::int32_t, std::int64_t>},
      {"array.scan.int64", scan<std::int64_t, std::int64_t>},
      {"array.elementwise.program", elementwise},
      {"array.elementwise.casts_int32", casts},
      {"array.layout.transpose_copy", layout},
      {"array.layout.compress", compress},
      {"array.creation.pattern", pattern},
  };
  all.insert(all.end(), arrays.begin(), arrays.end());
  return all;
}

std::vector<std::int64_t> test_sizes() {
#if defined(SLAB_KERNEL_CASES_ON_REFERENCE)
  return {0, 1, 31, 32, 4097};
#else
  return {0, 1, 31, 32, 4095, 4096, 4097, (1 << 20) + 1};
#endif
}

double copy_seconds(std::int64_t bytes, int repeats) {
#if defined(SLAB_KERNEL_CASES_ON_REFERENCE)
  (void)bytes, (void)repeats;
  return 0;
#else
  Dev<std::byte> a(static_cast<std::size_t>(bytes)), b(static_cast<std::size_t>(bytes));
  std::vector<double> t;
  for (int r = 0; r < repeats + 1; ++r) {
    sk::CudaTimer timer(nullptr);
    timer.start();
    slab::copy(b.get(), a.get(), static_cast<std::size_t>(bytes), legacy_stream_context());
    const double s = timer.stop();
    if (r > 0) t.push_back(s);  // the first copy warms up
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
#endif
}

}  // namespace kernel_check
