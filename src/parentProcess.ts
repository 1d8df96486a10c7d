/**
 * The pid of the process that started this one, read as the very first thing src/main.ts
 * imports (so before any other module is evaluated). Under `npm start`, npm (or the shell it
 * runs the script in) does not pass SIGTERM on to node: main.ts stops when its parent goes.
 * Read later, once the service was up (seconds, with the dev stack on a loaded machine), a
 * parent that had already gone would be read as the process that adopted node (pid 1), and
 * the change would never be seen: node ran on, orphaned, with every port bound.
 */
export const PARENT_AT_START = process.ppid;
