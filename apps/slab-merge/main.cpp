// slab-merge: workload W4 of docs/WORKLOADS.md, the cuDF-vs-pandas merge demo: an inner join of
// left (key, value) with right (key, value2) on key.
//
//   mpirun -n 2 slab-merge --generate --rows 20000000 --right-rows 2000000 --json
//   mpirun -n 2 slab-merge --generate-file w4.h5 --rows 20000000 --right-rows 2000000   # groups /left, /right
//   mpirun -n 2 slab-merge --input w4.h5:/left --right-input w4.h5:/right --json       # the same check values
//   mpirun -n 2 slab-merge --input left.csv --right-input right.csv
#include <slab/app/app.hpp>
#include <slab/app/frame_input.hpp>
#include <slab/frame/datasets.hpp>
#include <slab/frame/merge.hpp>
#include <workloads/workloads.hpp>

#include <sstream>
#include <string>

int main(int argc, char** argv) {
  slab::App app("slab-merge", "W4: inner join of left (key, value) and right (key, value2) on key.");
  bool generate = false;
  std::int64_t rows = 20'000'000, right_rows = 2'000'000;
  std::string strategy = "auto";
  std::int64_t partition_rows = 0;  // 0: up to 1,000,000, fitting the memory limit (slab::partition_rows_for)
  std::optional<slab::FrameFile> input, right_input;
  std::string generate_file;
  app.cli().add_flag("--generate", generate, "generate the W4 inputs (counter-based, as in WORKLOADS.md)");
  slab::add_frame_file(app, "--input", input, "read the left frame (key int64, value float64)");
  slab::add_frame_file(app, "--right-input", right_input, "read the right frame (key int64, value2 float64)");
  app.cli().add_option("--generate-file", generate_file,
                       "write the W4 inputs as the HDF5 frames /left and /right of FILE.h5 (then run only with "
                       "--generate)");
  app.cli()
      .add_option("--partition-rows", partition_rows,
                  "rows per partition (default: up to 1,000,000 (500,000 generated right rows), fitting --memory-limit)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 32));
  app.cli()
      .add_option("--rows", rows, "left rows")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 40));
  app.cli()
      .add_option("--right-rows", right_rows, "right rows (unique keys)")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  app.cli()
      .add_option("--strategy", strategy, "auto, broadcast or hash")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "broadcast", "hash"}));
  app.validate([&] {
    SLAB_EXPECTS(input.has_value() == right_input.has_value(), slab::InvalidArgument,
                 "slab-merge: give both --input and --right-input");
    SLAB_EXPECTS(!(generate && input), slab::InvalidArgument, "slab-merge: give --generate or --input, not both");
    SLAB_EXPECTS(generate || input || !generate_file.empty(), slab::InvalidArgument,
                 "slab-merge: give --generate, --input LEFT --right-input RIGHT, or --generate-file FILE.h5");
  });

  return app.run(argc, argv, [&](slab::AppContext& ctx) {
    namespace fr = slab::frame;
    slab::Comm& comm = ctx.comm();
    fr::Frame left, right;
    if (generate || !generate_file.empty()) {
      left = slab::workloads::w4_left(ctx.engine(), rows, slab::partition_rows_for(ctx.engine(), 16, partition_rows));
      right = slab::workloads::w4_right(ctx.engine(), right_rows,
                                        slab::partition_rows_for(ctx.engine(), 16, partition_rows, 500'000));
    }
    if (!generate_file.empty()) {
      slab::write_frame(ctx, left, {generate_file, "/left"}, "the W4 left input");
      slab::write_frame(ctx, right, {generate_file, "/right"}, "the W4 right input");
      if (!generate) {
        ctx.check("generated_rows", rows);
        ctx.check("generated_right_rows", right_rows);
        return;
      }
    }
    if (input) {
      partition_rows = slab::partition_rows_for(ctx.engine(), /*row_bytes: key, value=*/16, partition_rows);
      left = slab::read_frame(ctx.engine(), *input, partition_rows);
      slab::require_columns(left, *input, "slab-merge",
                            {{"key", {slab::ElementType::int64}}, {"value", {slab::ElementType::float64}}});
      right = slab::read_frame(ctx.engine(), *right_input, partition_rows);
      slab::require_columns(right, *right_input, "slab-merge",
                            {{"key", {slab::ElementType::int64}}, {"value2", {slab::ElementType::float64}}});
    }
    left.persist();  // generating or reading the inputs is not timed
    right.persist();
    const std::int64_t nleft = left.len(), nright = right.len();
    ctx.job_begin();
    fr::MergeOptions opt;
    opt.strategy = strategy == "hash"        ? fr::JoinStrategy::hash
                   : strategy == "broadcast" ? fr::JoinStrategy::broadcast
                                             : fr::JoinStrategy::automatic;
    fr::MergeStats stats;
    opt.stats = &stats;
    ctx.show_task_progress("merge");
    fr::Frame j = fr::merge(left, right, {"key"}, opt);
    j.persist();
    ctx.show_task_progress("");
    ctx.job_end();

    const fr::Schema& s = j.schema();
    const std::size_t ck = s.index_of("key"), cv = s.index_of("value"), cv2 = s.index_of("value2");
    std::int64_t ints[2] = {0, 0};  // nrows, sum_key
    double sums[2] = {0, 0};        // sum_value_x_value2, sum_value2
    for (const auto& part : j.partitions()) {
      auto [pin, b] = fr::view_chunk(part);
      if (b.ncols() == 0) continue;
      auto key = b.column<std::int64_t>(ck);
      auto v = b.column<double>(cv), v2 = b.column<double>(cv2);
      for (std::int64_t i = 0; i < b.nrows(); ++i) {
        ints[1] += key[i];
        sums[0] += v[i] * v2[i];
        sums[1] += v2[i];
      }
      ints[0] += b.nrows();
    }
    comm.allreduce(std::span<std::int64_t>(ints, 2), slab::ReduceOp::sum);
    comm.allreduce(std::span<double>(sums, 2), slab::ReduceOp::sum);
    ctx.check("left_rows", nleft);
    ctx.check("right_rows", nright);
    ctx.check("nrows", ints[0]);
    ctx.check("sum_key", ints[1]);
    ctx.check("sum_value_x_value2", sums[0]);
    ctx.check("sum_value2", sums[1]);
    ctx.check("strategy", std::string(stats.broadcast ? "broadcast" : "hash"));
    std::ostringstream out;
    out << "W4 merge " << nleft << " x " << nright << " on " << comm.size() << " ranks: " << ints[0] << " rows in "
        << ctx.job_seconds() << " s (" << (stats.broadcast ? "broadcast" : "hash") << ")\n";
    ctx.print(out.str());
  });
}
