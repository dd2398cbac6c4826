// An outside project using the installed slab: a collective sum over the ranks, checked.
#include <slab/app/app.hpp>

#include <cstdio>

int main(int argc, char** argv) {
  slab::App app("consumer", "installed-package check");
  return app.run(argc, argv, [](slab::AppContext& ctx) {
    const auto sum = ctx.comm().allreduce(static_cast<std::int64_t>(ctx.rank() + 1), slab::ReduceOp::sum);
    const auto expected = static_cast<std::int64_t>(ctx.size()) * (ctx.size() + 1) / 2;
    if (sum != expected) throw std::runtime_error("wrong sum");
    if (ctx.rank() == 0) std::printf("consumer ok: sum %lld over %d ranks\n", static_cast<long long>(sum), ctx.size());
  });
}
