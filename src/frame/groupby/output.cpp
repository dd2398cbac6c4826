#include "frame/groupby/output.hpp"

#include <cmath>
#include <limits>
#include <numeric>

#include "frame/kernels/agg_hd.hpp"
#include "frame/partitioner.hpp"

namespace slab::frame::detail {

void write_result(const GroupbyState& fin, const std::vector<OutCol>& out_cols, const Schema& out_schema, bool sort,
                  std::vector<std::byte>& storage) {
  const KeyEncoder& enc = fin.enc;
  const int W = enc.width();
  const std::size_t NG = fin.index->size();
  std::vector<std::size_t> order(NG);
  std::iota(order.begin(), order.end(), 0);
  std::vector<std::uint64_t> fkeys(NG * W);
  for (std::size_t g = 0; g < NG; ++g)
    for (int w = 0; w < W; ++w) fkeys[g * W + w] = fin.index->key_word(g, w);
  if (sort)
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return key_less(&fkeys[a * W], &fkeys[b * W], static_cast<std::size_t>(W)); });

  const std::vector<ElementType> types = types_of(out_schema);
  std::vector<bool> has_valid(types.size(), false);
  const std::size_t nk = enc.cols.size();
  for (std::size_t k = 0; k < nk; ++k) has_valid[k] = !enc.dropna;
  for (std::size_t j = 0; j < out_cols.size(); ++j) {
    const OutCol& oc = out_cols[j];
    if (oc.agg < 0) continue;
    const ColAgg& a = fin.aggs[oc.agg];
    const bool nullable = oc.op == AggOp::min || oc.op == AggOp::max || oc.op == AggOp::first || oc.op == AggOp::last;
    has_valid[nk + j] = nullable && !a.isf;
  }
  {
    BatchBuilder bb(storage, static_cast<std::int64_t>(NG), types, has_valid);
    std::vector<std::uint64_t> words(enc.nwords);
    for (std::size_t i = 0; i < NG; ++i) {
      enc.unpack(&fkeys[order[i] * W], words.data());
      for (std::size_t k = 0; k < nk; ++k) {
        const std::uint64_t w = words[enc.value_word(k)];
        const bool isnull = !enc.dropna && words[enc.value_word(k) - 1];
        if (!enc.dropna) bb.valid(k)[i] = isnull ? 0 : 1;
        switch (enc.types[k]) {
          case ElementType::int64:
          case ElementType::timestamp:
            bb.column<std::int64_t>(k)[i] = static_cast<std::int64_t>(w ^ kSign);
            break;
          case ElementType::float64:
            bb.column<double>(k)[i] = isnull ? std::numeric_limits<double>::quiet_NaN() : word_float(w);
            break;
          case ElementType::boolean:
            bb.column<std::uint8_t>(k)[i] = static_cast<std::uint8_t>(w);
            break;
          case ElementType::string:
            bb.column<std::int32_t>(k)[i] = isnull ? -1 : static_cast<std::int32_t>(w);
            break;
          default:  // not a column type: a Schema holds none
            break;
        }
      }
    }
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (std::size_t j = 0; j < out_cols.size(); ++j) {
      const std::size_t c = nk + j;
      const OutCol& oc = out_cols[j];
      if (oc.agg < 0) {
        auto out = bb.column<std::int64_t>(c);
        for (std::size_t i = 0; i < NG; ++i) out[i] = fin.size[order[i]];
        continue;
      }
      const ColAgg& a = fin.aggs[oc.agg];
      std::uint8_t* valid = bb.valid(c);
      auto put_value = [&](std::size_t i, std::uint64_t b, bool present) {
        // min/max/first/last in the value type
        if (valid) valid[i] = present ? 1 : 0;
        switch (a.type) {
          case ElementType::float64:
            bb.column<double>(c)[i] = present ? from_bits<double>(b) : nan;
            break;
          case ElementType::int64:
          case ElementType::timestamp:
            bb.column<std::int64_t>(c)[i] = present ? from_bits<std::int64_t>(b) : 0;
            break;
          case ElementType::boolean:
            bb.column<std::uint8_t>(c)[i] = present && from_bits<std::int64_t>(b) ? 1 : 0;
            break;
          case ElementType::string:
            bb.column<std::int32_t>(c)[i] = present ? static_cast<std::int32_t>(from_bits<std::int64_t>(b)) : -1;
            break;
          default:  // not a column type: a Schema holds none
            break;
        }
      };
      for (std::size_t i = 0; i < NG; ++i) {
        const std::size_t g = order[i];
        const std::int64_t n = a.cnt ? a.count[g] : 0;
        switch (oc.op) {
          case AggOp::count:
            bb.column<std::int64_t>(c)[i] = n;
            break;
          case AggOp::nunique:
            bb.column<std::int64_t>(c)[i] = a.nunique.empty() ? 0 : a.nunique[g];
            break;
          case AggOp::sum:
            if (a.isf)
              bb.column<double>(c)[i] = from_bits<double>(a.s[g]);
            else
              bb.column<std::int64_t>(c)[i] = from_bits<std::int64_t>(a.s[g]);
            break;
          case AggOp::mean: {
            double m = nan;
            if (n > 0 && a.type == ElementType::int64)
              m = kernels::int64_mean(from_bits<std::int64_t>(a.s[g]), n, from_bits<std::int64_t>(a.vmin[g]),
                                      from_bits<std::int64_t>(a.vmax[g]), a.mean[g]);
            else if (n > 0)
              m = (a.isf ? from_bits<double>(a.s[g]) : static_cast<double>(from_bits<std::int64_t>(a.s[g]))) /
                  static_cast<double>(n);
            bb.column<double>(c)[i] = m;
            break;
          }
          case AggOp::var:
          case AggOp::std: {
            const double v = n > 1 ? a.m2[g] / static_cast<double>(n - 1) : nan;
            bb.column<double>(c)[i] = oc.op == AggOp::std ? std::sqrt(v) : v;
            break;
          }
          case AggOp::min:
            put_value(i, a.vmin[g], n > 0);
            break;
          case AggOp::max:
            put_value(i, a.vmax[g], n > 0);
            break;
          case AggOp::first:
            put_value(i, a.fval[g], n > 0);
            break;
          case AggOp::last:
            put_value(i, a.lval[g], n > 0);
            break;
          case AggOp::median:
          case AggOp::quantile:
            bb.column<double>(c)[i] = a.holistic_result.empty() ? nan : a.holistic_result[oc.holistic][g];
            break;
          case AggOp::size:
            break;
        }
      }
    }
  }
}

}  // namespace slab::frame::detail
