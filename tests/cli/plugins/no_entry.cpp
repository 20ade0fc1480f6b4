// A shared library without tilejit's entry point.
extern "C" int tilejit_plugin_entry_misspelled() { return 1; }
