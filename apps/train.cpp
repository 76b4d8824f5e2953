// Temporary: replaced by the driver in this session.
int main() { return 0; }
