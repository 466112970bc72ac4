// A static local whose initializer throws is initialized again on the next call.
#include <cstdio>

static int attempts = 0;

struct Config {
  int value;
  Config() : value(0) {
    ++attempts;
    std::printf("Config attempt %d\n", attempts);
    if (attempts < 3)
      throw attempts;
    value = attempts * 10;
  }
  ~Config() { std::printf("~Config\n"); }
};

static int config_value() {
  static Config config;
  return config.value;
}

int main() {
  for (int i = 0; i < 5; ++i) {
    try {
      std::printf("value %d\n", config_value());
    } catch (int failed) {
      std::printf("attempt %d failed\n", failed);
    }
  }
  return attempts;
}
