#include "trace/replace_file.hpp"

#include <filesystem>
#include <fstream>

#include "slab/core/error.hpp"

namespace slab::detail {

void replace_file(const std::string& path, std::string_view what, const std::function<void(std::ostream&)>& write) {
  const std::string tmp = path + ".tmp";
  std::error_code ec;
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (out) write(out);
    out.flush();
    if (!out) {
      out.close();
      std::filesystem::remove(tmp, ec);
      SLAB_FAIL(IoError, "cannot write " + std::string(what) + " '" + path + "'");
    }
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    const std::string why = ec.message();
    std::filesystem::remove(tmp, ec);
    SLAB_FAIL(IoError, "cannot move " + std::string(what) + " into place at '" + path + "': " + why);
  }
}

}  // namespace slab::detail
