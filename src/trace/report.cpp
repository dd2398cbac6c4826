#include "slab/trace/report.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

#include "slab/core/error.hpp"
#include "trace/replace_file.hpp"
#include "trace/report_page.hpp"

namespace slab {

namespace {

using nlohmann::json;

constexpr std::size_t kStreamResolution = 3000;  // task-stream bins across the run: shorter events are merged
constexpr std::size_t kMemoryPoints = 1500;      // memory samples kept per rank (each the max of its bin)
constexpr std::size_t kProfileNames = 10;        // task names shown in the profile, the rest summed
constexpr int kMaxDepth = 2;                     // nesting levels drawn (deeper ones are drawn at this level)

std::size_t kind_index(std::string_view cat, std::string_view name) {
  if (cat == "spill") return name.rfind("reload", 0) == 0 || name.rfind("unspill", 0) == 0 ? 4 : 3;
  for (std::size_t k = 0; k < kReportKindCount; ++k)
    if (kReportKinds[k] == cat) return k;
  return kReportKindCount - 1;  // other
}

struct Event {
  double start = 0;
  double end = 0;
  std::size_t kind = 0;
  std::size_t name = 0;  // index into the name table
  std::uint64_t bytes = 0;
  int depth = 0;
  double self = 0;
};

struct Sample {
  double time = 0;
  std::array<std::uint64_t, 3> bytes{};
};

struct Lane {
  std::string label;
  std::vector<Event> events;
  std::vector<Sample> memory;
  bool has_peak = false;
  std::array<std::uint64_t, 3> peak{};
};

/// Everything read from a trace: the summary plus what the page draws.
struct Model {
  TraceReport report;
  std::vector<std::string> names;
  std::map<int, Lane> lanes;
};

[[noreturn]] void bad_trace(std::string_view source, const std::string& why) {
  SLAB_FAIL(InvalidArgument, "'" + std::string(source) + "' is not a slab trace (trace-event JSON): " + why);
}

double number(const json& ev, const char* key, std::size_t index, std::string_view source) {
  const auto it = ev.find(key);
  if (it == ev.end() || !it->is_number() || !std::isfinite(it->get<double>()))
    bad_trace(source, "event " + std::to_string(index) + " has no numeric \"" + key + "\"");
  return it->get<double>();
}

std::uint64_t count_arg(const json& args, const char* key) {
  const auto it = args.find(key);
  if (it == args.end() || !it->is_number()) return 0;
  const double v = it->get<double>();
  return v > 0 ? static_cast<std::uint64_t>(v) : 0;
}

int pid_of(const json& ev, std::size_t index, std::string_view source) {
  const auto it = ev.find("pid");
  if (it == ev.end() || !it->is_number_integer() || it->get<long long>() < 0 || it->get<long long>() > (1 << 24))
    bad_trace(source, "event " + std::to_string(index) + " has no rank (\"pid\" a non-negative integer)");
  return it->get<int>();
}

// Nesting on one lane: depth and self time of each event (time not covered by the events inside it).
void nest(std::vector<Event>& events) {
  std::sort(events.begin(), events.end(),
            [](const Event& a, const Event& b) { return a.start != b.start ? a.start < b.start : a.end > b.end; });
  std::vector<std::size_t> open;
  for (std::size_t i = 0; i < events.size(); ++i) {
    Event& e = events[i];
    while (!open.empty() && events[open.back()].end <= e.start) open.pop_back();
    e.depth = static_cast<int>(open.size());
    e.self = e.end - e.start;
    if (!open.empty()) {
      Event& parent = events[open.back()];
      parent.self -= std::min(e.end, parent.end) - e.start;
    }
    open.push_back(i);
  }
  for (auto& e : events) e.self = std::max(0.0, e.self);
}

double busy_time(const std::vector<Event>& events) {  // sorted by start
  double busy = 0, until = -1e300;
  for (const auto& e : events) {
    if (e.end <= until) continue;
    busy += e.end - std::max(e.start, until);
    until = e.end;
  }
  return busy;
}

Model read_model(std::string_view text, std::string_view source) {
  json root;
  try {
    root = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    bad_trace(source, e.what());
  }
  const json* events = nullptr;
  json other = json::object();
  if (root.is_array()) {
    events = &root;
  } else if (root.is_object() && root.contains("traceEvents") && root["traceEvents"].is_array()) {
    events = &root["traceEvents"];
    if (root.contains("otherData") && root["otherData"].is_object()) other = root["otherData"];
  } else {
    bad_trace(source, "expected an object with a \"traceEvents\" array");
  }

  Model m;
  TraceReport& r = m.report;
  if (other.contains("app") && other["app"].is_string()) r.app = other["app"].get<std::string>();
  if (other.contains("ranks") && other["ranks"].is_number_integer()) {
    const auto n = other["ranks"].get<long long>();
    if (n < 0 || n > (1 << 24)) bad_trace(source, "otherData.ranks is " + std::to_string(n));
    for (int p = 0; p < n; ++p) m.lanes[p];
  }
  double wall = 0;
  if (other.contains("wall_seconds") && other["wall_seconds"].is_number())
    wall = std::max(0.0, other["wall_seconds"].get<double>());

  std::map<std::string, std::size_t> name_ids;
  auto name_id = [&](const std::string& name) {
    auto [it, inserted] = name_ids.try_emplace(name, m.names.size());
    if (inserted) m.names.push_back(name);
    return it->second;
  };

  for (std::size_t i = 0; i < events->size(); ++i) {
    const json& ev = (*events)[i];
    if (!ev.is_object()) bad_trace(source, "event " + std::to_string(i) + " is not an object");
    const auto ph = ev.find("ph");
    if (ph == ev.end() || !ph->is_string()) bad_trace(source, "event " + std::to_string(i) + " has no \"ph\"");
    const std::string& phase = ph->get_ref<const std::string&>();
    const std::string name = ev.contains("name") && ev["name"].is_string() ? ev["name"].get<std::string>() : "";
    const json args = ev.contains("args") && ev["args"].is_object() ? ev["args"] : json::object();
    if (phase == "X") {
      Lane& lane = m.lanes[pid_of(ev, i, source)];
      const double ts = number(ev, "ts", i, source) * 1e-6;
      const double dur = std::max(0.0, number(ev, "dur", i, source) * 1e-6);
      const std::string cat = ev.contains("cat") && ev["cat"].is_string() ? ev["cat"].get<std::string>() : "";
      lane.events.push_back(Event{ts, ts + dur, kind_index(cat, name), name_id(name), count_arg(args, "bytes")});
      wall = std::max(wall, ts + dur);
      r.events += 1;
    } else if (phase == "C" && name == "memory") {
      Lane& lane = m.lanes[pid_of(ev, i, source)];
      const double ts = number(ev, "ts", i, source) * 1e-6;
      lane.memory.push_back(Sample{ts, {count_arg(args, "device"), count_arg(args, "host"), count_arg(args, "disk")}});
      wall = std::max(wall, ts);
      r.memory_samples += 1;
    } else if (phase == "M" && name == "process_name" && args.contains("name") && args["name"].is_string()) {
      m.lanes[pid_of(ev, i, source)].label = args["name"].get<std::string>();
    }
  }
  // Exact peaks per rank, when the tracer wrote them (its counters are throttled).
  if (other.contains("memory_peak_bytes") && other["memory_peak_bytes"].is_array()) {
    const json& peaks = other["memory_peak_bytes"];
    for (std::size_t p = 0; p < peaks.size(); ++p) {
      if (!peaks[p].is_object()) continue;
      Lane& lane = m.lanes[static_cast<int>(p)];
      lane.has_peak = true;
      lane.peak = {count_arg(peaks[p], "device"), count_arg(peaks[p], "host"), count_arg(peaks[p], "disk")};
    }
  }
  // Reservations by purpose: the largest rank's peak of each.
  if (other.contains("reservation_peak_bytes") && other["reservation_peak_bytes"].is_array()) {
    const json& peaks = other["reservation_peak_bytes"];
    std::map<std::string, ReservationReport> by_purpose;
    for (std::size_t p = 0; p < peaks.size(); ++p) {
      if (!peaks[p].is_object()) continue;
      for (const auto& item : peaks[p].items()) {
        const std::string& purpose = item.key();
        ReservationReport& rr = by_purpose[purpose];
        const std::uint64_t b = count_arg(peaks[p], purpose.c_str());
        if (rr.purpose.empty() || b > rr.peak_bytes) rr = ReservationReport{purpose, b, static_cast<int>(p)};
      }
    }
    for (auto& [purpose, rr] : by_purpose) r.reservations.push_back(std::move(rr));
    std::stable_sort(r.reservations.begin(), r.reservations.end(),
                     [](const auto& a, const auto& b) { return a.peak_bytes > b.peak_bytes; });
  }
  if (m.lanes.empty()) bad_trace(source, "it has no events of any rank");
  r.wall_seconds = wall;

  for (auto& [pid, lane] : m.lanes) {
    if (lane.label.empty()) lane.label = "rank " + std::to_string(pid);
    nest(lane.events);
    std::sort(lane.memory.begin(), lane.memory.end(), [](const Sample& a, const Sample& b) { return a.time < b.time; });
    RankReport rr;
    rr.rank = pid;
    rr.label = lane.label;
    for (const auto& e : lane.events) {
      rr.self_seconds[e.kind] += e.self;
      rr.bytes[e.kind] += e.bytes;
      rr.events[e.kind] += 1;
    }
    rr.busy_seconds = busy_time(lane.events);
    if (lane.has_peak) {
      rr.peak_bytes = lane.peak;
    } else {
      for (const auto& s : lane.memory)
        for (int t = 0; t < 3; ++t) rr.peak_bytes[t] = std::max(rr.peak_bytes[t], s.bytes[t]);
    }
    for (int t = 0; t < 3; ++t) r.peak_bytes[t] = std::max(r.peak_bytes[t], rr.peak_bytes[t]);
    r.spilled_bytes += rr.bytes[3];
    r.unspilled_bytes += rr.bytes[4];
    r.ranks.push_back(std::move(rr));
  }
  return m;
}

// Short events of one kind at one depth that lie closer together than `res` become one bar, which says how
// many they were and how much of its span they were busy (drawn as its opacity). Each (depth, kind) has its own
// run, so interleaved kinds merge too: a lane has at most about depths x kinds x kStreamResolution bars,
// however many events the run recorded.
json stream_items(const std::vector<Event>& events, const std::vector<std::string>& names, double res,
                  std::vector<std::string>& merged_names, std::map<std::string, std::size_t>& merged_ids) {
  struct Run {
    Event e;
    std::uint64_t count = 0;
    double busy = 0;
    std::set<std::size_t> names;
  };
  std::vector<std::array<double, 8>> items;
  std::array<std::array<std::optional<Run>, kReportKindCount>, kMaxDepth + 1> open;
  auto flush = [&](std::optional<Run>& run) {
    if (!run) return;
    std::size_t name = run->e.name;
    if (run->names.size() > 1) {
      std::string label;
      std::size_t shown = 0;
      for (std::size_t n : run->names) {
        if (shown++ == 3) {
          label += ", ...";
          break;
        }
        label += (shown > 1 ? ", " : "") + names[n];
      }
      auto [it, inserted] = merged_ids.try_emplace(label, names.size() + merged_names.size());
      if (inserted) merged_names.push_back(label);
      name = it->second;
    }
    items.push_back({run->e.start, run->e.end - run->e.start, static_cast<double>(run->e.kind),
                     static_cast<double>(run->e.depth), static_cast<double>(name), static_cast<double>(run->count),
                     static_cast<double>(run->e.bytes), run->busy});
    run.reset();
  };
  for (const auto& e : events) {
    const int depth = std::min(e.depth, kMaxDepth);
    auto& run = open[depth][e.kind];
    const double dur = e.end - e.start;
    const bool short_event = dur < res;
    if (run && short_event && e.start - run->e.end < res && run->e.end - run->e.start < 20 * res) {
      run->e.end = std::max(run->e.end, e.end);
      run->e.bytes += e.bytes;
      run->count += 1;
      run->busy += dur;
      run->names.insert(e.name);
      continue;
    }
    flush(run);
    run = Run{e, 1, dur, {e.name}};
    run->e.depth = depth;
    if (!short_event) flush(run);
  }
  for (auto& by_kind : open)
    for (auto& run : by_kind) flush(run);
  // Deeper bars are drawn later, on top of the events that hold them.
  std::sort(items.begin(), items.end(),
            [](const auto& x, const auto& y) { return x[3] != y[3] ? x[3] < y[3] : x[0] < y[0]; });
  json out = json::array();
  for (const auto& it : items) out.push_back(it);
  return out;
}

// At most kMemoryPoints samples per rank: each bin keeps its largest value per tier (peaks stay visible), and
// the last sample is kept as it is (the state at the end).
json memory_points(const std::vector<Sample>& samples, double wall) {
  json out = json::array();
  if (samples.empty()) return out;
  const double bin = std::max(wall, 1e-9) / static_cast<double>(kMemoryPoints);
  std::optional<Sample> cur;
  long long cur_bin = -1;
  auto emit = [&](const Sample& s) { out.push_back({s.time, s.bytes[0], s.bytes[1], s.bytes[2]}); };
  for (std::size_t i = 0; i + 1 < samples.size(); ++i) {
    const Sample& s = samples[i];
    const auto b = static_cast<long long>(s.time / bin);
    if (samples.size() <= kMemoryPoints) {
      emit(s);
      continue;
    }
    if (cur && b == cur_bin) {
      for (int t = 0; t < 3; ++t) cur->bytes[t] = std::max(cur->bytes[t], s.bytes[t]);
      continue;
    }
    if (cur) emit(*cur);
    cur = s;
    cur_bin = b;
  }
  if (cur) emit(*cur);
  emit(samples.back());
  return out;
}

json page_data(const Model& m, std::string_view source) {
  const TraceReport& r = m.report;
  const double res = std::max(r.wall_seconds, 1e-9) / static_cast<double>(kStreamResolution);
  json lanes = json::array();
  std::vector<std::string> merged_names;
  std::map<std::string, std::size_t> merged_ids;
  // Profile: self time per (kind, task name) over all ranks.
  std::map<std::pair<std::size_t, std::size_t>, std::array<double, 3>> profile;  // seconds, count, bytes
  for (const auto& rr : r.ranks) {
    const Lane& lane = m.lanes.at(rr.rank);
    for (const auto& e : lane.events) {
      auto& p = profile[{e.kind, e.name}];
      p[0] += e.self;
      p[1] += 1;
      p[2] += static_cast<double>(e.bytes);
    }
    lanes.push_back({{"rank", rr.rank},
                     {"label", rr.label},
                     {"busy", rr.busy_seconds},
                     {"self", rr.self_seconds},
                     {"bytes", rr.bytes},
                     {"events", rr.events},
                     {"peak", rr.peak_bytes},
                     {"items", stream_items(lane.events, m.names, res, merged_names, merged_ids)},
                     {"memory", memory_points(lane.memory, r.wall_seconds)}});
  }
  std::vector<std::pair<std::pair<std::size_t, std::size_t>, std::array<double, 3>>> rows(profile.begin(),
                                                                                          profile.end());
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second[0] > b.second[0]; });
  json prof = json::array();
  std::array<double, 3> rest{};
  std::size_t rest_names = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& [key, v] = rows[i];
    if (i < kProfileNames) {
      prof.push_back(
          {{"name", m.names[key.second]}, {"kind", key.first}, {"seconds", v[0]}, {"count", v[1]}, {"bytes", v[2]}});
    } else {
      for (int k = 0; k < 3; ++k) rest[k] += v[k];
      ++rest_names;
    }
  }
  if (rest_names)
    prof.push_back({{"name", "(" + std::to_string(rest_names) + " other names)"},
                    {"kind", -1},
                    {"seconds", rest[0]},
                    {"count", rest[1]},
                    {"bytes", rest[2]}});
  std::vector<std::string> all_names = m.names;
  all_names.insert(all_names.end(), merged_names.begin(), merged_names.end());
  const std::string file = std::filesystem::path(std::string(source)).filename().string();
  json reservations = json::array();
  for (const auto& rr : r.reservations)
    reservations.push_back({{"purpose", rr.purpose}, {"peak", rr.peak_bytes}, {"rank", rr.rank}});
  return {{"app", r.app},
          {"source", file},
          {"wall", r.wall_seconds},
          {"kinds", kReportKinds},
          {"names", all_names},
          {"lanes", lanes},
          {"profile", prof},
          {"spilled", r.spilled_bytes},
          {"unspilled", r.unspilled_bytes},
          {"peak", r.peak_bytes},
          {"events", r.events},
          {"memorySamples", r.memory_samples},
          {"reservations", reservations}};
}

std::string render(const Model& m, std::string_view source) {
  std::string data = page_data(m, source).dump(-1, ' ', false, json::error_handler_t::replace);
  // Inside <script>, "</" could end the element early; "<\\/" is the same JSON string.
  std::string safe;
  safe.reserve(data.size());
  for (std::size_t i = 0; i < data.size(); ++i) {
    if (data[i] == '<' && i + 1 < data.size() && data[i + 1] == '/') {
      safe += "<\\/";
      ++i;
    } else {
      safe += data[i];
    }
  }
  const std::string_view page = detail::report_page();
  const std::string_view marker = "/*SLAB_REPORT_DATA*/";
  const auto at = page.find(marker);
  std::string html;
  html.reserve(page.size() + safe.size());
  html.append(page.substr(0, at)).append(safe).append(page.substr(at + marker.size()));
  return html;
}

}  // namespace

TraceReport summarize_trace(std::string_view json_text, std::string_view source) {
  return read_model(json_text, source).report;
}

std::string render_html_report(std::string_view json_text, std::string_view source) {
  return render(read_model(json_text, source), source);
}

TraceReport write_html_report(const std::string& trace_json_path, const std::string& html_path) {
  std::ifstream in(trace_json_path, std::ios::binary);
  if (!in) SLAB_FAIL(IoError, "cannot open trace file '" + trace_json_path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) SLAB_FAIL(IoError, "cannot read trace file '" + trace_json_path + "'");
  const Model m = read_model(text.str(), trace_json_path);
  const std::string html = render(m, trace_json_path);
  detail::replace_file(html_path, "report", [&](std::ostream& out) { out << html; });
  return m.report;
}

}  // namespace slab
