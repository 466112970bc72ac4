// Member functions, const member functions, private data and out-of-line definitions.
#include <stdio.h>

class Account {
public:
  Account(int start);
  ~Account();
  void deposit(int amount);
  int balance() const;
  bool withdraw(int amount);

private:
  int total;
};

Account::Account(int start) : total(start) { printf("open with %d\n", total); }
Account::~Account() { printf("close with %d\n", total); }
void Account::deposit(int amount) { total += amount; }
int Account::balance() const { return total; }
bool Account::withdraw(int amount) {
  if (amount > total)
    return false;
  total -= amount;
  return true;
}

int main() {
  Account acc(100);
  acc.deposit(50);
  printf("withdraw 70: %d\n", acc.withdraw(70));
  printf("withdraw 500: %d\n", acc.withdraw(500));
  const Account& view = acc;
  printf("balance %d\n", view.balance());
  return 0;
}
