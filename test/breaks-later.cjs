// Preloaded (node --require) by a test of Ctrl-Break: after BREAK_AFTER_MS, the process hears SIGBREAK, as a
// Windows console delivers it (Linux has no such signal: it is emitted here).
setTimeout(() => process.emit('SIGBREAK', 'SIGBREAK'), Number(process.env.BREAK_AFTER_MS || 500));
