// Preloaded by bun test (bunfig.toml): quiet logs unless asked for.
process.env.CAIRN_LOG_LEVEL ??= "silent";
process.env.NODE_ENV ??= "test";
