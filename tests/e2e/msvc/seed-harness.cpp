// The driver half of every seed scenario on the Microsoft ABI (crates/ehir/tests/msvc_e2e.rs):
// `called`, which the callees of the seed listings call to log themselves (`call @<mangled
// name>`) and then throw or return what the command line scripts, and a `main` that calls
// the scenario's entry `ehir_entry()`. The same file is compiled by ehir (for Windows)
// for the PE executable and by g++ for the native reference; `called` and `ehir_entry`
// keep their Itanium names on both targets (asm labels), the names the CIR listings use.
// The callees are in seed-callees.cir (ehir) and seed-callees.gxx.cpp (g++); the entries in
// seeds/entry-*.cir (ehir) and seed-callees.gxx.cpp (g++).
//
// Scripting: the words of the command line, in the interpreter's terms:
//   throw CALLEE NTH TYPE VALUE    the NTH call of CALLEE (0: every call) throws TYPE
//                                  (int, float or double) with VALUE
//   returns CALLEE N V1 ... VN     successive results of CALLEE (the last one repeats)
// An exception escaping the entry prints `escape` and exits with status 1.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ThrowSpec {
  const char *callee;
  int nth;
  const char *type;
  const char *value;
};

struct ReturnSpec {
  const char *callee;
  int first;
  int count;
};

ThrowSpec throw_specs[16];
int throw_spec_count = 0;
ReturnSpec return_specs[16];
int return_spec_count = 0;
int return_values[64];
int return_value_count = 0;

const char *called_names[64];
int called_counts[64];
int called_name_count = 0;

void bad_command_line(const char *word) {
  printf("harness: cannot parse the command line at '%s'\n", word);
  exit(99);
}

void parse_command_line(int argc, char **argv) {
  int i = 1;
  while (i < argc) {
    if (strcmp(argv[i], "throw") == 0 && i + 4 < argc && throw_spec_count < 16) {
      throw_specs[throw_spec_count].callee = argv[i + 1];
      throw_specs[throw_spec_count].nth = atoi(argv[i + 2]);
      throw_specs[throw_spec_count].type = argv[i + 3];
      throw_specs[throw_spec_count].value = argv[i + 4];
      throw_spec_count = throw_spec_count + 1;
      i = i + 5;
    } else if (strcmp(argv[i], "returns") == 0 && i + 2 < argc && return_spec_count < 16) {
      int n = atoi(argv[i + 2]);
      if (n < 1 || i + 3 + n > argc || return_value_count + n > 64)
        bad_command_line(argv[i]);
      return_specs[return_spec_count].callee = argv[i + 1];
      return_specs[return_spec_count].first = return_value_count;
      return_specs[return_spec_count].count = n;
      return_spec_count = return_spec_count + 1;
      for (int k = 0; k < n; k++) {
        return_values[return_value_count] = atoi(argv[i + 3 + k]);
        return_value_count = return_value_count + 1;
      }
      i = i + 3 + n;
    } else {
      bad_command_line(argv[i]);
    }
  }
}

// A decimal number with an optional fraction ("2.5", "-3").
double parse_number(const char *text) {
  double sign = 1.0;
  int i = 0;
  if (text[0] == '-') {
    sign = -1.0;
    i = 1;
  }
  double value = 0.0;
  while (text[i] >= '0' && text[i] <= '9') {
    value = value * 10.0 + (text[i] - '0');
    i++;
  }
  if (text[i] == '.') {
    i++;
    double scale = 0.1;
    while (text[i] >= '0' && text[i] <= '9') {
      value = value + (text[i] - '0') * scale;
      scale = scale / 10.0;
      i++;
    }
  }
  return sign * value;
}

void throw_as(const char *type, const char *value) {
  if (strcmp(type, "int") == 0)
    throw atoi(value);
  if (strcmp(type, "float") == 0)
    throw (float)parse_number(value);
  if (strcmp(type, "double") == 0)
    throw parse_number(value);
  printf("harness: cannot throw '%s'\n", type);
  exit(99);
}

// Logs a call of an external function, then throws or returns what the specs say.
int called(const char *name) __asm__("_Z6calledPKc");
int called(const char *name) {
  printf("call @%s\n", name);
  int n = 0;
  for (int i = 0; i < called_name_count; i++) {
    if (strcmp(called_names[i], name) == 0) {
      called_counts[i] = called_counts[i] + 1;
      n = called_counts[i];
    }
  }
  if (n == 0) {
    if (called_name_count == 64) {
      printf("harness: too many functions\n");
      exit(99);
    }
    called_names[called_name_count] = name;
    called_counts[called_name_count] = 1;
    called_name_count = called_name_count + 1;
    n = 1;
  }
  for (int i = 0; i < throw_spec_count; i++) {
    if (strcmp(throw_specs[i].callee, name) == 0 &&
        (throw_specs[i].nth == 0 || throw_specs[i].nth == n))
      throw_as(throw_specs[i].type, throw_specs[i].value);
  }
  for (int i = 0; i < return_spec_count; i++) {
    if (strcmp(return_specs[i].callee, name) == 0) {
      int k = n - 1;
      if (k >= return_specs[i].count)
        k = return_specs[i].count - 1;
      return return_values[return_specs[i].first + k];
    }
  }
  return 0;
}

// Calls the seed's entry and prints how it returned.
void ehir_entry() __asm__("_Z10ehir_entryv");

int main(int argc, char **argv) {
  parse_command_line(argc, argv);
  try {
    ehir_entry();
  } catch (...) {
    printf("escape\n");
    return 1;
  }
  return 0;
}
