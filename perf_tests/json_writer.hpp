#pragma once
// A minimal JSON writer: objects, arrays, strings, numbers, booleans.
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace gustav::bench {

class JsonWriter {
 public:
  JsonWriter& begin_object(const std::string& key = "") { open(key, '{'); return *this; }
  JsonWriter& end_object() { close('}'); return *this; }
  JsonWriter& begin_array(const std::string& key = "") { open(key, '['); return *this; }
  JsonWriter& end_array() { close(']'); return *this; }

  JsonWriter& field(const std::string& key, const std::string& v) { prefix(key); quote(v); return *this; }
  JsonWriter& field(const std::string& key, const char* v) { return field(key, std::string(v)); }
  JsonWriter& field(const std::string& key, bool v) { prefix(key); out_ << (v ? "true" : "false"); return *this; }
  JsonWriter& field(const std::string& key, double v) {
    prefix(key);
    if (std::isfinite(v)) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.9g", v);
      out_ << buf;
    } else {
      out_ << "null";
    }
    return *this;
  }
  template <class Int, class = std::enable_if_t<std::is_integral_v<Int> && !std::is_same_v<Int, bool>>>
  JsonWriter& field(const std::string& key, Int v) { prefix(key); out_ << v; return *this; }
  JsonWriter& numbers(const std::string& key, const std::vector<double>& v) {
    begin_array(key);
    for (double x : v) field("", x);
    return end_array();
  }

  std::string str() const { return out_.str(); }

 private:
  void open(const std::string& key, char c) {
    prefix(key);
    out_ << c;
    first_.push_back(true);
  }
  void close(char c) {
    first_.pop_back();
    out_ << "\n" << std::string(2 * first_.size(), ' ') << c;
  }
  void prefix(const std::string& key) {
    if (!first_.empty()) {
      if (!first_.back()) out_ << ",";
      first_.back() = false;
      out_ << "\n" << std::string(2 * first_.size(), ' ');
    }
    if (!key.empty()) {
      quote(key);
      out_ << ": ";
    }
  }
  void quote(const std::string& s) {
    out_ << '"';
    for (char c : s) {
      switch (c) {
        case '"': out_ << "\\\""; break;
        case '\\': out_ << "\\\\"; break;
        case '\n': out_ << "\\n"; break;
        case '\t': out_ << "\\t"; break;
        default:
          if (static_cast<unsigned char>(c) < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out_ << buf;
          } else {
            out_ << c;
          }
      }
    }
    out_ << '"';
  }

  std::ostringstream out_;
  std::vector<bool> first_;
};

}  // namespace gustav::bench
