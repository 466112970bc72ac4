// A scope-guard template runs its lambda on every exit unless dismissed.
#include <cstdio>

template <typename F> class ScopeGuard {
public:
  explicit ScopeGuard(F action) : action_(action), active_(true) {}
  ScopeGuard(ScopeGuard &&other) : action_(other.action_), active_(other.active_) { other.active_ = false; }
  ~ScopeGuard() {
    if (active_)
      action_();
  }
  void dismiss() { active_ = false; }

private:
  F action_;
  bool active_;
};

template <typename F> ScopeGuard<F> make_guard(F action) { return ScopeGuard<F>(action); }

static int balance = 100;

static void transfer(int amount, bool fail) {
  balance -= amount;
  auto rollback = make_guard([amount] {
    balance += amount;
    std::printf("rolled back %d\n", amount);
  });
  if (fail)
    throw amount;
  rollback.dismiss();
  std::printf("transferred %d\n", amount);
}

int main() {
  transfer(10, false);
  try {
    transfer(30, true);
  } catch (int amount) {
    std::printf("transfer of %d failed\n", amount);
  }
  {
    auto bye = make_guard([] { std::printf("leaving block\n"); });
    std::printf("in block\n");
  }
  std::printf("balance %d\n", balance);
  return balance == 90 ? 0 : 1;
}
