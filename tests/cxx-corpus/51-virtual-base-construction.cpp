// Virtual bases under construction: the most derived class builds the shared base once,
// virtual calls during construction and destruction go to the class being built, a
// constructor that throws destroys exactly what was built, and an exception object with
// a virtual base is copied and caught through it.
#include <cstdio>

struct Logger {
  int id;
  explicit Logger(int i) : id(i) { std::printf("Logger(%d)\n", id); }
  Logger(const Logger &other) : id(other.id + 100) { std::printf("Logger copy %d\n", id); }
  virtual ~Logger() { std::printf("~Logger(%d)\n", id); }
  virtual const char *name() const { return "Logger"; }
};

struct FileSink : virtual Logger {
  int fd = 3;
  FileSink() : Logger(1) { std::printf("FileSink sees %s\n", name()); }
  ~FileSink() override { std::printf("~FileSink sees %s\n", name()); }
  const char *name() const override { return "FileSink"; }
};

struct NetSink : virtual Logger {
  int port;
  explicit NetSink(int p) : Logger(2), port(p) {
    std::printf("NetSink sees %s\n", name());
    if (p < 0)
      throw p;
  }
  ~NetSink() override { std::printf("~NetSink\n"); }
};

struct TeeSink : FileSink, NetSink {
  TeeSink(int port) : Logger(42), NetSink(port) { std::printf("TeeSink sees %s\n", name()); }
  TeeSink() : TeeSink(80) { std::printf("delegated\n"); }
  ~TeeSink() override { std::printf("~TeeSink\n"); }
  const char *name() const override { return "TeeSink"; }
};

int main() {
  int status = 0;
  try {
    TeeSink broken(-5);
  } catch (int port) {
    std::printf("construction failed at port %d\n", port);
    status += 1;
  }
  try {
    throw TeeSink();
  } catch (Logger &log) {
    std::printf("caught %s id %d\n", log.name(), log.id);
    status += log.id;
  }
  try {
    TeeSink *tee = new TeeSink;
    NetSink &net = *tee;
    std::printf("net port %d, logger %d\n", net.port, net.id);
    throw tee;
  } catch (Logger *log) {
    std::printf("caught pointer to %s\n", log->name());
    status += 10;
    delete log;
  }
  return status;
}
