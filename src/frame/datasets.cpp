#include "slab/frame/datasets.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <type_traits>

#include "frame/kernels/generate.hpp"
#include "frame/kernels/generate_hd.hpp"
#include "memory/kernel_scratch.hpp"
#include "runtime/device_backend.hpp"
#include "slab/comm/comm.hpp"
#include "slab/core/counter_rng.hpp"
#include "slab/core/error.hpp"
#include "slab/core/time.hpp"
#include "slab/engine/host_fallback.hpp"
#include "slab/task/task_context.hpp"

namespace slab::frame {

Dictionary names_dictionary() {
  std::vector<std::string> v(kNames.begin(), kNames.end());  // already sorted
  return make_dictionary(std::move(v));
}

namespace {

/// generate()'s partitions: global partition k holds rows [k per, min(nrows, (k + 1) per)), dealt to ranks in
/// balanced contiguous blocks; each is one task of make_task(first_row, end_row).
template <class MakeTask>
Frame generate_partitions(Engine& engine, Schema schema, std::int64_t nrows, std::int64_t rows_per_partition,
                          const std::string& name, MakeTask make_task, TaskPlace place = TaskPlace::host) {
  SLAB_EXPECTS(nrows >= 0, InvalidArgument, "datasets: negative row count");
  std::int64_t per = rows_per_partition > 0 ? rows_per_partition : std::max<std::int64_t>(nrows, 1);
  std::int64_t nparts = (nrows + per - 1) / per;
  int p = engine.comm().size(), r = engine.comm().rank();
  std::int64_t base = nparts / p, extra = nparts % p;
  std::int64_t first = r * base + std::min<std::int64_t>(r, extra);
  std::int64_t count = base + (r < extra ? 1 : 0);
  std::vector<Chunk> parts;
  std::vector<std::optional<std::int64_t>> rows;
  for (std::int64_t k = first; k < first + count; ++k) {
    std::int64_t b = k * per, e = std::min(nrows, b + per);
    parts.push_back(engine.tasks().submit(name, {}, make_task(b, e), TaskOptions{TraceKind::compute, false, place}));
    rows.emplace_back(e - b);
  }
  return Frame(engine, std::move(schema), std::move(parts), std::move(rows));
}

/// The recipe fits column c of `schema` (generate's checks, on every rank alike: the same arguments everywhere).
void check_recipe(const Schema& schema, std::size_t c, const ColumnRecipe& recipe, const std::string& name) {
  using Kind = ColumnRecipe::Kind;
  const ElementType t = schema.type(c);
  const std::string what = "generate '" + name + "': column '" + schema.name(c) + "' (" + to_string(t) + ")";
  const bool integer = recipe.kind != Kind::uniform;
  SLAB_EXPECTS((t == ElementType::float64) == !integer, TypeError,
               what + (integer ? " needs a uniform recipe" : ": a uniform recipe makes float64 values only"));
  if (!integer) return;
  const bool modular = recipe.kind == Kind::hash_mod || recipe.kind == Kind::multiply_mod;
  SLAB_EXPECTS(!modular || recipe.modulus > 0, InvalidArgument, what + ": a modulus of 0");
  if (t == ElementType::string || t == ElementType::boolean) {
    const std::uint64_t range =
        t == ElementType::boolean ? 2 : (schema.dictionary(c) ? schema.dictionary(c)->size() : 0);
    const std::int64_t offset = recipe.kind == Kind::hash_mod ? recipe.offset : 0;
    SLAB_EXPECTS(modular && offset >= 0 && recipe.modulus <= range &&
                     static_cast<std::uint64_t>(offset) <= range - recipe.modulus,
                 InvalidArgument,
                 what + ": the recipe must be a hash_mod or multiply_mod whose values lie in [0, " +
                     std::to_string(range) + (t == ElementType::string ? "), the dictionary's codes" : ")"));
  }
}

/// Column c's values of rows [first, first + n) by its recipe, on the host: generate_hd.hpp's arithmetic, the
/// device kernel's.
void fill_on_host(const ColumnRecipe& recipe, ElementType type, std::int64_t first, BatchBuilder& out, std::size_t c) {
  const std::int64_t n = out.nrows();
  const auto r0 = static_cast<std::uint64_t>(first);
  auto fill = [&](auto* o) {
    for (std::int64_t i = 0; i < n; ++i)
      o[i] = static_cast<std::remove_pointer_t<decltype(o)>>(
          kernels::recipe_integer(recipe, r0 + static_cast<std::uint64_t>(i)));
  };
  switch (type) {
    case ElementType::float64: {
      double* o = out.column<double>(c).data();
      for (std::int64_t i = 0; i < n; ++i) o[i] = kernels::recipe_float(recipe, r0 + static_cast<std::uint64_t>(i));
      break;
    }
    case ElementType::string:
      fill(out.column<std::int32_t>(c).data());
      break;
    case ElementType::boolean:
      fill(out.column<std::uint8_t>(c).data());
      break;
    default:
      fill(out.column<std::int64_t>(c).data());
      break;
  }
}

/// The partition of rows [b, e) by the recipes: one GenerateKernels call per column on the device, else the host
/// loop.
void make_partition(TaskContext& ctx, const std::vector<ColumnRecipe>& recipes, const std::vector<ElementType>& types,
                    bool device, std::int64_t b, std::int64_t e) {
  BatchBuilder out(ctx, e - b, types, {});
  if (device && e > b) {
    slab::detail::with_device_backend(ctx.execution(), [&](auto tag) {
      using B = typename decltype(tag)::type;
      slab::detail::KernelScratch scratch(ctx.memory());
      const kernels::Exec exec = scratch.exec(ctx.execution());
      for (std::size_t c = 0; c < types.size(); ++c)
        kernels::GenerateKernels<B>::column(exec, recipes[c], types[c], b, e - b, out.data(c));
    });
    return;
  }
  for (std::size_t c = 0; c < types.size(); ++c) fill_on_host(recipes[c], types[c], b, out, c);
}

}  // namespace

Frame generate(Engine& engine, Schema schema, std::int64_t nrows, std::int64_t rows_per_partition, std::string name,
               std::function<void(std::int64_t first_row, BatchBuilder& out)> fill) {
  note_host_fallback(engine, name);  // a fill function is a host loop
  auto fillp = std::make_shared<std::function<void(std::int64_t, BatchBuilder&)>>(std::move(fill));
  auto types = types_of(schema);
  return generate_partitions(engine, std::move(schema), nrows, rows_per_partition, name,
                             [fillp, types](std::int64_t b, std::int64_t e) {
                               return [fillp, types, b, e](TaskContext& ctx) {
                                 BatchBuilder out(ctx, e - b, types, {});
                                 (*fillp)(b, out);
                               };
                             });
}

Frame generate(Engine& engine, Schema schema, std::int64_t nrows, std::int64_t rows_per_partition, std::string name,
               std::vector<ColumnRecipe> columns) {
  SLAB_EXPECTS(columns.size() == schema.size(), InvalidArgument,
               "generate '" + name + "': " + std::to_string(columns.size()) + " column recipes for " +
                   std::to_string(schema.size()) + " columns");
  for (std::size_t c = 0; c < schema.size(); ++c) check_recipe(schema, c, columns[c], name);
  const bool device = slab::detail::has_device_backend(engine.tasks().memory().execution());
  if (!device) note_host_fallback(engine, name);  // the recipes' host loop (recorded only where it is a fallback)
  auto types = types_of(schema);
  auto recipes = std::make_shared<const std::vector<ColumnRecipe>>(std::move(columns));
  return generate_partitions(
      engine, std::move(schema), nrows, rows_per_partition, name,
      [recipes, types, device](std::int64_t b, std::int64_t e) {
        return [recipes, types, device, b, e](TaskContext& ctx) { make_partition(ctx, *recipes, types, device, b, e); };
      },
      device ? TaskPlace::device : TaskPlace::host);
}

Frame timeseries(Engine& engine, std::string_view start, std::string_view end, std::string_view freq,
                 std::uint64_t seed, std::string_view partition_freq) {
  const std::int64_t t0 = parse_timestamp(start), t1 = parse_timestamp(end);
  const std::int64_t f = parse_duration(freq, "timeseries: freq"),
                     pf = parse_duration(partition_freq, "timeseries: partition_freq");
  std::int64_t n = t1 > t0 ? (t1 - t0 + f - 1) / f : 0;
  std::int64_t per = std::max<std::int64_t>(pf / f, 1);
  std::uint64_t s0 = 100 + 4 * (seed % 1000);
  Schema schema({{"timestamp", ElementType::timestamp},
                 {"id", ElementType::int64},
                 {"name", ElementType::string},
                 {"x", ElementType::float64},
                 {"y", ElementType::float64}},
                {nullptr, nullptr, names_dictionary(), nullptr, nullptr});
  using R = ColumnRecipe;
  return generate(engine, schema, n, per, "timeseries",
                  {R::affine(t0, f), R::hash_mod(s0, 101, 950), R::hash_mod(s0 + 1, 26), R::uniform(s0 + 2, -1.0, 1.0),
                   R::uniform(s0 + 3, -1.0, 1.0)});
}

}  // namespace slab::frame
