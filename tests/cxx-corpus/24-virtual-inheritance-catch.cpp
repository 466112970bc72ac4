// A diamond with a virtual base: the exception is caught by the shared base.
#include <cstdio>

struct Error {
  int code;
  explicit Error(int c) : code(c) { std::printf("Error(%d)\n", c); }
  virtual ~Error() { std::printf("~Error\n"); }
};
struct NetworkError : virtual Error {
  NetworkError() : Error(1) {}
};
struct ProtocolError : virtual Error {
  ProtocolError() : Error(2) {}
};
struct HandshakeError : NetworkError, ProtocolError {
  HandshakeError() : Error(42) { std::printf("HandshakeError\n"); }
  ~HandshakeError() override { std::printf("~HandshakeError\n"); }
};

int main() {
  int status = 0;
  try {
    throw HandshakeError();
  } catch (Error &e) {
    std::printf("caught Error %d\n", e.code);
    status = e.code;
  }
  try {
    throw HandshakeError();
  } catch (const ProtocolError &e) {
    std::printf("caught ProtocolError %d\n", e.code);
    status += 1;
  }
  return status;
}
