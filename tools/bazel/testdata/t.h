#define TVAL 3
