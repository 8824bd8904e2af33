/*
 * hold-open FILE [read|none]: hold FILE open as another Windows program does, until a line (or the end) comes on
 * standard input. "read" shares reading only, as Excel holds a workbook it has open (a rename over it is refused:
 * EPERM); "none" shares nothing, as Excel holds a CSV (even reading it is refused: EBUSY). A tool of the Windows
 * smoke test (scripts/test-windows.mjs), which builds it with mingw-w64 when that is installed: Node cannot open a
 * file sharing less than read, write and delete (libuv asks for all three).
 */
#include <windows.h>
#include <stdio.h>
#include <wchar.h>

int wmain(int argc, wchar_t **argv) {
  if (argc < 2) {
    fputs("usage: hold-open FILE [read|none]\n", stderr);
    return 2;
  }
  DWORD share = argc > 2 && wcscmp(argv[2], L"none") == 0 ? 0 : FILE_SHARE_READ;
  HANDLE file = CreateFileW(argv[1], GENERIC_READ | GENERIC_WRITE, share, NULL, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
  if (file == INVALID_HANDLE_VALUE) {
    fprintf(stderr, "hold-open: cannot open the file (Windows error %lu)\n", GetLastError());
    return 1;
  }
  puts("holding");
  fflush(stdout);
  getchar();
  CloseHandle(file);
  return 0;
}
