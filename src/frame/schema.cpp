#include "slab/frame/schema.hpp"

#include <algorithm>

#include "slab/core/error.hpp"

namespace slab::frame {

Dictionary make_dictionary(std::vector<std::string> sorted_unique) {
  return std::make_shared<const std::vector<std::string>>(std::move(sorted_unique));
}

Schema::Schema(std::vector<Field> fields, std::vector<Dictionary> dictionaries)
    : fields_(std::move(fields)), dictionaries_(std::move(dictionaries)) {
  SLAB_EXPECTS(dictionaries_.empty() || dictionaries_.size() == fields_.size(), InvalidArgument,
               "Schema: " + std::to_string(dictionaries_.size()) + " dictionaries for " +
                   std::to_string(fields_.size()) + " columns");
  dictionaries_.resize(fields_.size());
  for (std::size_t i = 0; i < fields_.size(); ++i) {
    SLAB_EXPECTS(is_column_type(fields_[i].type), TypeError,
                 "Schema: column '" + fields_[i].name + "' has type " + slab::to_string(fields_[i].type) +
                     "; a frame's columns are int64, float64, bool, datetime64[ns] or string");
    for (std::size_t j = 0; j < i; ++j)
      SLAB_EXPECTS(fields_[j].name != fields_[i].name, InvalidArgument,
                   "Schema: duplicate column '" + fields_[i].name + "'");
    if (fields_[i].type == ElementType::string) {
      if (!dictionaries_[i]) dictionaries_[i] = make_dictionary({});
    } else {
      dictionaries_[i] = nullptr;
    }
  }
}

std::vector<std::string> Schema::names() const {
  std::vector<std::string> out;
  for (const auto& f : fields_) out.push_back(f.name);
  return out;
}

std::optional<std::size_t> Schema::find(std::string_view name) const noexcept {
  for (std::size_t i = 0; i < fields_.size(); ++i)
    if (fields_[i].name == name) return i;
  return std::nullopt;
}

std::size_t Schema::index_of(std::string_view name) const {
  if (auto i = find(name)) return *i;
  std::string cols;
  for (std::size_t i = 0; i < fields_.size(); ++i) cols += (i ? ", " : "") + fields_[i].name;
  SLAB_FAIL(InvalidArgument, "unknown column '" + std::string(name) + "' (columns: " + cols + ")");
}

std::vector<std::size_t> Schema::indices_of(const std::vector<std::string>& names) const {
  std::vector<std::size_t> out;
  for (const auto& n : names) out.push_back(index_of(n));
  return out;
}

void Schema::set_dictionary(std::size_t i, Dictionary dictionary) {
  SLAB_EXPECTS(fields_.at(i).type == ElementType::string, TypeError,
               "Schema::set_dictionary: column '" + fields_[i].name + "' is not a string column");
  dictionaries_.at(i) = dictionary ? std::move(dictionary) : make_dictionary({});
}

std::int32_t Schema::code_of(std::size_t i, std::string_view value) const {
  const auto& d = dictionaries_.at(i);
  if (!d) return -1;
  auto it =
      std::lower_bound(d->begin(), d->end(), value, [](const std::string& a, std::string_view b) { return a < b; });
  if (it == d->end() || *it != value) return -1;
  return static_cast<std::int32_t>(it - d->begin());
}

Schema Schema::with_column(Field field, Dictionary dictionary) const {
  auto fields = fields_;
  auto dicts = dictionaries_;
  if (auto i = find(field.name)) {
    fields[*i] = std::move(field);
    dicts[*i] = std::move(dictionary);
  } else {
    fields.push_back(std::move(field));
    dicts.push_back(std::move(dictionary));
  }
  return Schema(std::move(fields), std::move(dicts));
}

Schema Schema::select(const std::vector<std::string>& names) const {
  std::vector<Field> fields;
  std::vector<Dictionary> dicts;
  for (auto i : indices_of(names)) {
    fields.push_back(fields_[i]);
    dicts.push_back(dictionaries_[i]);
  }
  return Schema(std::move(fields), std::move(dicts));
}

std::string Schema::to_string() const {
  std::string out;
  for (std::size_t i = 0; i < fields_.size(); ++i)
    out += (i ? ", " : "") + fields_[i].name + ": " + slab::to_string(fields_[i].type);
  return out;
}

bool operator==(const Schema& a, const Schema& b) {
  if (a.fields_ != b.fields_) return false;
  for (std::size_t i = 0; i < a.fields_.size(); ++i) {
    const auto& da = a.dictionaries_[i];
    const auto& db = b.dictionaries_[i];
    if (da == db) continue;
    if (!da || !db || *da != *db) return false;
  }
  return true;
}

}  // namespace slab::frame
