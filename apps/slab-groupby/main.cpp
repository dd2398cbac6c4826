// slab-groupby: workload W3 of ../shared/WORKLOADS.md, the dask_cudf groupby demo:
//   df.groupby(['id', 'name']).agg({'x': ['mean', 'sum', 'count', 'std'], 'y': ['min', 'max']})
//
//   mpirun -n 2 slab-groupby --generate --rows 20000000 --json
#include <slab/app/app.hpp>
#include <slab/frame/datasets.hpp>
#include <slab/frame/groupby.hpp>

#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include <string>

int main(int argc, char** argv) {
  slab::App app("slab-groupby", "W3: groupby(['id','name']).agg({'x': [mean, sum, count, std], 'y': [min, max]}).");
  bool generate = false;
  std::int64_t rows = 20'000'000;
  std::int64_t partition_rows = 1'000'000;
  bool unsorted = false;
  app.cli().add_flag("--generate", generate, "generate the W3 input (counter-based, as in WORKLOADS.md)");
  app.cli()
      .add_option("--rows", rows, "rows to generate")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 40));
  app.cli()
      .add_option("--partition-rows", partition_rows, "rows per partition")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 32));
  app.cli().add_flag("--no-sort", unsorted, "leave the groups unsorted (sort=False)");

  return app.run(argc, argv, [&](slab::AppContext& ctx) {
    namespace fr = slab::frame;
    if (!generate)
      throw slab::InvalidArgument("slab-groupby: give --generate (file input is not supported yet)", __FILE__,
                                  __LINE__);
    slab::Comm& comm = ctx.comm();
    fr::Frame df = fr::datasets::w3(ctx.tasks(), rows, partition_rows);
    df.persist();  // generation is not timed
    ctx.job_begin();
    fr::GroupbyOptions opt;
    opt.sort = !unsorted;
    fr::Frame g = fr::groupby(df, {"id", "name"},
                              {{"x", {fr::AggOp::mean, fr::AggOp::sum, fr::AggOp::count, fr::AggOp::std}},
                               {"y", {fr::AggOp::min, fr::AggOp::max}}},
                              opt);
    g.persist();
    ctx.job_end();

    // Checks over this rank's groups, then summed over ranks.
    const fr::Schema& s = g.schema();
    const auto& dict = *s.dictionary(s.index_of("name"));
    std::vector<std::int64_t> name_index(dict.size(), -1);
    for (std::size_t c = 0; c < dict.size(); ++c)
      for (std::size_t k = 0; k < fr::kNames.size(); ++k)
        if (dict[c] == fr::kNames[k]) name_index[c] = static_cast<std::int64_t>(k);
    double sums[6] = {0, 0, 0, 0, 0, 0};  // x_sum, x_mean, x_std, y_min, y_max, wsum_xsum
    std::int64_t counts[2] = {0, 0};      // ngroups, sum_count
    std::int64_t first_key = std::numeric_limits<std::int64_t>::max(), first_count = 0;
    for (const auto& part : g.partitions()) {
      auto [pin, b] = fr::view_chunk(part);
      if (b.ncols() == 0) continue;
      auto id = b.column<std::int64_t>(0);
      auto name = b.column<std::int32_t>(1);
      auto xmean = b.column<double>(2), xsum = b.column<double>(3), xstd = b.column<double>(5);
      auto xcount = b.column<std::int64_t>(4);
      auto ymin = b.column<double>(6), ymax = b.column<double>(7);
      for (std::int64_t i = 0; i < b.nrows(); ++i) {
        const std::int64_t key = id[i] * 26 + name_index[name[i]];
        sums[0] += xsum[i];
        sums[1] += xmean[i];
        if (!std::isnan(xstd[i])) sums[2] += xstd[i];
        sums[3] += ymin[i];
        sums[4] += ymax[i];
        sums[5] += static_cast<double>(key) * xsum[i];
        counts[0] += 1;
        counts[1] += xcount[i];
        if (key < first_key) {
          first_key = key;
          first_count = xcount[i];
        }
      }
    }
    comm.allreduce(std::span<double>(sums, 6), slab::ReduceOp::sum);
    comm.allreduce(std::span<std::int64_t>(counts, 2), slab::ReduceOp::sum);
    const std::int64_t gmin = comm.allreduce(first_key, slab::ReduceOp::min);
    const std::int64_t fcount = comm.allreduce(first_key == gmin ? first_count : std::int64_t{0}, slab::ReduceOp::sum);
    ctx.check("ngroups", counts[0]);
    ctx.check("sum_count", counts[1]);
    ctx.check("sum_x_sum", sums[0]);
    ctx.check("sum_x_mean", sums[1]);
    ctx.check("sum_x_std", sums[2]);
    ctx.check("sum_y_min", sums[3]);
    ctx.check("sum_y_max", sums[4]);
    ctx.check("wsum_xsum", sums[5]);
    const bool any = counts[0] > 0;
    ctx.check("first_id", any ? gmin / 26 : std::int64_t{-1});
    ctx.check("first_name", any ? std::string(fr::kNames[gmin % 26]) : std::string());
    ctx.check("first_count", fcount);
    std::ostringstream out;
    out << "W3 groupby of " << rows << " rows on " << comm.size() << " ranks: " << counts[0] << " groups in "
        << ctx.job_seconds() << " s\n";
    ctx.print(out.str());
  });
}
