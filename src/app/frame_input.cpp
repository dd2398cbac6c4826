// The frame apps' --input. See slab/app/frame_input.hpp.
#include "slab/app/frame_input.hpp"

#include <algorithm>
#include <cctype>
#include <memory>

#include "slab/comm/comm.hpp"
#include "slab/core/error.hpp"
#include "slab/engine/engine.hpp"
#include "slab/io/csv.hpp"
#include "slab/io/frame_io.hpp"

namespace slab {

namespace {

bool ends_with_nocase(std::string_view text, std::string_view suffix) {
  if (text.size() < suffix.size()) return false;
  return std::equal(suffix.begin(), suffix.end(), text.end() - static_cast<std::ptrdiff_t>(suffix.size()),
                    [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
}

void check_columns(const frame::Schema& schema, const FrameFile& input, std::string_view app,
                   const std::vector<NeededColumn>& needed) {
  for (const NeededColumn& c : needed) {
    const auto at = schema.find(c.name);
    if (!at) {
      std::string names;
      for (const auto& n : schema.names()) names += (names.empty() ? "" : ", ") + n;
      SLAB_FAIL(InvalidArgument, input.str() + ": no column '" + c.name + "' (columns: " + names + ")");
    }
    const ElementType t = schema.type(*at);
    SLAB_EXPECTS(std::find(c.types.begin(), c.types.end(), t) != c.types.end(), TypeError,
                 input.str() + ": column '" + c.name + "' is " + frame::to_string(t) + "; " + std::string(app) +
                     " needs " + frame::to_string(c.types.front()));
  }
}

}  // namespace

FrameFile FrameFile::parse(const std::string& text, std::string_view flag) {
  if (text.find(":/") != std::string::npos) {
    const DatasetPath p = DatasetPath::parse(text, flag);
    return FrameFile{p.file, p.object};
  }
  if (ends_with_nocase(text, ".csv")) return FrameFile{text, ""};
  SLAB_EXPECTS(ends_with_nocase(text, ".h5") || ends_with_nocase(text, ".hdf5"), InvalidArgument,
               std::string(flag) + ": '" + text + "' is not FILE.h5:/group, FILE.h5 or FILE.csv");
  return FrameFile{text, "/frame"};
}

void add_frame_file(App& app, const std::string& flag, std::optional<FrameFile>& target, const std::string& help) {
  auto text = std::make_shared<std::string>();
  app.cli().add_option(flag, *text, help + " (FILE.h5:/group, FILE.h5 for /frame, or FILE.csv)");
  app.validate([text, flag, &target] {
    if (!text->empty()) target = FrameFile::parse(*text, flag);
  });
}

std::int64_t partition_rows_for(Engine& engine, std::int64_t row_bytes, std::int64_t requested, std::int64_t at_most) {
  if (requested > 0) return requested;
  const auto fit = static_cast<std::int64_t>(engine.memory().budget(8) / static_cast<std::uint64_t>(std::max<std::int64_t>(row_bytes, 1)));
  return std::clamp<std::int64_t>(fit, std::min<std::int64_t>(1024, at_most), at_most);
}

frame::Frame read_frame(Engine& engine, const FrameFile& input, std::int64_t rows_per_partition) {
  frame::Frame out;
  // The readers throw the same error on every rank; agreeing on it lets the app end every rank cleanly.
  engine.comm().run_collectively([&] {
    if (!input.is_csv()) {
      out = slab::io::read_hdf5(engine, input.file, input.group, rows_per_partition);
      return;
    }
    slab::io::CsvOptions options;
    options.rows_per_partition = rows_per_partition;
    out = slab::io::read_csv(engine, input.file, options);
  });
  return out;
}

void write_frame(AppContext& ctx, const frame::Frame& frame, const FrameFile& output, std::string_view what) {
  slab::io::write_hdf5(frame, output.file, output.group);
  const std::int64_t rows = frame.len();
  ctx.print("wrote " + std::string(what) + " (" + std::to_string(rows) + " rows) to " + output.str() + "\n");
}

void require_columns(const frame::Frame& frame, const FrameFile& input, std::string_view app,
                     const std::vector<NeededColumn>& needed) {
  frame.engine().comm().run_collectively([&] { check_columns(frame.schema(), input, app, needed); });
}

}  // namespace slab
