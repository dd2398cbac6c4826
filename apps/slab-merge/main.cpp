// slab-merge: workload W4 of ../shared/WORKLOADS.md, the cuDF-vs-pandas merge demo: an inner join of
// left (key, value) with right (key, value2) on key.
//
//   mpirun -n 2 slab-merge --generate --rows 20000000 --right-rows 2000000 --json
#include <slab/app/app.hpp>
#include <slab/frame/datasets.hpp>
#include <slab/frame/merge.hpp>

#include <sstream>
#include <string>

int main(int argc, char** argv) {
  slab::App app("slab-merge", "W4: inner join of left (key, value) and right (key, value2) on key.");
  bool generate = false;
  std::int64_t rows = 20'000'000, right_rows = 2'000'000;
  std::string strategy = "auto";
  app.cli().add_flag("--generate", generate, "generate the W4 inputs (counter-based, as in WORKLOADS.md)");
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

  return app.run(argc, argv, [&](slab::AppContext& ctx) {
    namespace fr = slab::frame;
    if (!generate)
      throw slab::InvalidArgument("slab-merge: give --generate (file input is not supported yet)", __FILE__, __LINE__);
    slab::Comm& comm = ctx.comm();
    fr::Frame left = fr::datasets::w4_left(ctx.tasks(), rows);
    fr::Frame right = fr::datasets::w4_right(ctx.tasks(), right_rows);
    left.persist();
    right.persist();
    ctx.job_begin();
    fr::MergeOptions opt;
    opt.strategy = strategy == "hash"        ? fr::JoinStrategy::hash
                   : strategy == "broadcast" ? fr::JoinStrategy::broadcast
                                             : fr::JoinStrategy::automatic;
    fr::MergeStats stats;
    opt.stats = &stats;
    fr::Frame j = fr::merge(left, right, {"key"}, opt);
    j.persist();
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
    ctx.check("nrows", ints[0]);
    ctx.check("sum_key", ints[1]);
    ctx.check("sum_value_x_value2", sums[0]);
    ctx.check("sum_value2", sums[1]);
    ctx.check("strategy", std::string(stats.broadcast ? "broadcast" : "hash"));
    std::ostringstream out;
    out << "W4 merge " << rows << " x " << right_rows << " on " << comm.size() << " ranks: " << ints[0] << " rows in "
        << ctx.job_seconds() << " s (" << (stats.broadcast ? "broadcast" : "hash") << ")\n";
    ctx.print(out.str());
  });
}
