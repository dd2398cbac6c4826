// slab-groupby: workload W3 of docs/WORKLOADS.md, the dask_cudf groupby demo:
//   df.groupby(['id', 'name']).agg({'x': ['mean', 'sum', 'count', 'std'], 'y': ['min', 'max']})
//
//   mpirun -n 2 slab-groupby --generate --rows 20000000 --json
//   mpirun -n 2 slab-groupby --generate-file w3.h5 --rows 20000000     # W3 as an HDF5 frame (group /frame)
//   mpirun -n 2 slab-groupby --input w3.h5:/frame --json                 # the same check values
//   mpirun -n 2 slab-groupby --input w3.csv                              # columns id, name, x, y
#include <slab/app/app.hpp>
#include <slab/app/frame_input.hpp>
#include <slab/frame/datasets.hpp>
#include <slab/frame/groupby.hpp>
#include <workloads/workloads.hpp>

#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include <string>

namespace fr = slab::frame;

int main(int argc, char** argv) {
  slab::App app("slab-groupby", "W3: groupby(['id','name']).agg({'x': [mean, sum, count, std], 'y': [min, max]}).");
  bool generate = false;
  std::int64_t rows = 20'000'000;
  std::int64_t partition_rows = 0;  // 0: up to 1,000,000, fitting the memory limit (slab::partition_rows_for)
  bool unsorted = false;
  std::optional<slab::FrameFile> input, generate_file;
  app.cli().add_flag("--generate", generate, "generate the W3 input (counter-based, as in WORKLOADS.md)");
  slab::add_frame_file(app, "--input", input, "read the input frame (id int64, name string, x and y float64)");
  slab::add_frame_file(app, "--generate-file", generate_file,
                       "write the W3 input of --rows rows as an HDF5 frame (then run only with --generate)");
  app.cli()
      .add_option("--rows", rows, "rows to generate")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 40));
  app.cli()
      .add_option("--partition-rows", partition_rows, "rows per partition (default: up to 1,000,000, fitting --memory-limit)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 32));
  app.cli().add_flag("--no-sort", unsorted, "leave the groups unsorted (sort=False)");
  app.validate([&] {
    SLAB_EXPECTS(!(generate && input), slab::InvalidArgument, "slab-groupby: give --generate or --input, not both");
    SLAB_EXPECTS(generate || input || generate_file, slab::InvalidArgument,
                 "slab-groupby: give --generate, --input FILE or --generate-file FILE.h5");
    SLAB_EXPECTS(!generate_file || !generate_file->is_csv(), slab::InvalidArgument,
                 "--generate-file: writes an HDF5 frame (FILE.h5 or FILE.h5:/group), not CSV");
  });

  return app.run(argc, argv, [&](slab::AppContext& ctx) {
    slab::Comm& comm = ctx.comm();
    partition_rows = slab::partition_rows_for(ctx.engine(), /*row_bytes: id, name, x, y=*/28, partition_rows);
    fr::Frame df;
    if (generate || generate_file) df = slab::workloads::w3(ctx.engine(), rows, partition_rows);
    if (generate_file) {
      slab::write_frame(ctx, df, *generate_file, "the W3 input");
      if (!generate) {
        ctx.check("generated_rows", rows);
        return;
      }
    }
    if (input) {
      df = slab::read_frame(ctx.engine(), *input, partition_rows);
      slab::require_columns(df, *input, "slab-groupby",
                            {{"id", {slab::ElementType::int64}},
                             {"name", {slab::ElementType::string}},
                             {"x", {slab::ElementType::float64}},
                             {"y", {slab::ElementType::float64}}});
    }
    df.persist();  // generating or reading the input is not timed
    const std::int64_t n = df.len();

    ctx.job_begin();
    fr::GroupbyOptions opt;
    opt.sort = !unsorted;
    ctx.show_task_progress("groupby");
    fr::Frame g = fr::groupby(df, {"id", "name"},
                              {{"x", {fr::AggOp::mean, fr::AggOp::sum, fr::AggOp::count, fr::AggOp::std}},
                               {"y", {fr::AggOp::min, fr::AggOp::max}}},
                              opt);
    g.persist();
    ctx.show_task_progress("");
    ctx.job_end();

    // Checks over this rank's groups, then summed over ranks. name_index: the position in WORKLOADS.md's
    // NAMES (sorted, so key order = (id, name) order); a name outside NAMES counts as 26 + its code.
    const fr::Schema& s = g.schema();
    const auto& dict = *s.dictionary(s.index_of("name"));
    std::vector<std::int64_t> name_index(dict.size());
    for (std::size_t c = 0; c < dict.size(); ++c) {
      name_index[c] = 26 + static_cast<std::int64_t>(c);
      for (std::size_t k = 0; k < fr::kNames.size(); ++k)
        if (dict[c] == fr::kNames[k]) name_index[c] = static_cast<std::int64_t>(k);
    }
    const std::size_t cid = s.index_of("id"), cname = s.index_of("name"), cxmean = s.index_of("x_mean"),
                      cxsum = s.index_of("x_sum"), cxcount = s.index_of("x_count"), cxstd = s.index_of("x_std"),
                      cymin = s.index_of("y_min"), cymax = s.index_of("y_max");
    double sums[6] = {0, 0, 0, 0, 0, 0};  // x_sum, x_mean, x_std, y_min, y_max, wsum_xsum
    std::int64_t counts[2] = {0, 0};      // ngroups, sum_count
    // The smallest (id, name) group of this rank: id, name code, count (codes order like names).
    constexpr std::int64_t none = std::numeric_limits<std::int64_t>::max();
    std::int64_t first[3] = {none, none, 0};
    for (const auto& part : g.partitions()) {
      auto [pin, b] = fr::view_chunk(part);
      if (b.ncols() == 0) continue;
      auto id = b.column<std::int64_t>(cid);
      auto name = b.column<std::int32_t>(cname);
      auto xmean = b.column<double>(cxmean), xsum = b.column<double>(cxsum), xstd = b.column<double>(cxstd);
      auto xcount = b.column<std::int64_t>(cxcount);
      auto ymin = b.column<double>(cymin), ymax = b.column<double>(cymax);
      for (std::int64_t i = 0; i < b.nrows(); ++i) {
        sums[0] += xsum[i];
        sums[1] += xmean[i];
        if (!std::isnan(xstd[i])) sums[2] += xstd[i];
        sums[3] += ymin[i];
        sums[4] += ymax[i];
        sums[5] += static_cast<double>(id[i] * 26 + name_index[name[i]]) * xsum[i];
        counts[0] += 1;
        counts[1] += xcount[i];
        if (std::pair(id[i], std::int64_t{name[i]}) < std::pair(first[0], first[1]))
          first[0] = id[i], first[1] = name[i], first[2] = xcount[i];
      }
    }
    comm.allreduce(std::span<double>(sums, 6), slab::ReduceOp::sum);
    comm.allreduce(std::span<std::int64_t>(counts, 2), slab::ReduceOp::sum);
    std::vector<std::int64_t> firsts(static_cast<std::size_t>(3 * comm.size()));
    comm.allgather(std::span<const std::int64_t>(first, 3), std::span<std::int64_t>(firsts));
    for (std::size_t r = 0; r < firsts.size(); r += 3)
      if (std::pair(firsts[r], firsts[r + 1]) < std::pair(first[0], first[1]))
        first[0] = firsts[r], first[1] = firsts[r + 1], first[2] = firsts[r + 2];
    const bool any = counts[0] > 0;
    ctx.check("rows", n);
    ctx.check("ngroups", counts[0]);
    ctx.check("sum_count", counts[1]);
    ctx.check("sum_x_sum", sums[0]);
    ctx.check("sum_x_mean", sums[1]);
    ctx.check("sum_x_std", sums[2]);
    ctx.check("sum_y_min", sums[3]);
    ctx.check("sum_y_max", sums[4]);
    ctx.check("wsum_xsum", sums[5]);
    ctx.check("first_id", any ? first[0] : std::int64_t{-1});
    ctx.check("first_name", any ? dict[static_cast<std::size_t>(first[1])] : std::string());
    ctx.check("first_count", any ? first[2] : std::int64_t{0});
    std::ostringstream out;
    out << "W3 groupby of " << n << " rows on " << comm.size() << " ranks: " << counts[0] << " groups in "
        << ctx.job_seconds() << " s\n";
    ctx.print(out.str());
  });
}
