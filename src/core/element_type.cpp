#include "slab/core/element_type.hpp"

namespace slab {

const char* to_string(ElementType type) noexcept {
  switch (type) {
    case ElementType::int64:
      return "int64";
    case ElementType::float64:
      return "float64";
    case ElementType::boolean:
      return "bool";
    case ElementType::timestamp:
      return "datetime64[ns]";
    case ElementType::string:
      return "string";
    case ElementType::float32:
      return "float32";
    case ElementType::int32:
      return "int32";
    case ElementType::uint64:
      return "uint64";
    case ElementType::int8:
      return "int8";
    case ElementType::uint8:
      return "uint8";
    case ElementType::uint32:
      return "uint32";
    case ElementType::bytes:
      return "bytes";
  }
  return "?";
}

}  // namespace slab
