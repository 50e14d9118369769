/* File helpers for the caches: create folders, read a whole file, and write a file so that a
 * reader sees the old file or the whole new one, never a part (a temporary file in the same
 * folder, flushed to disk, then renamed into place). */
#ifndef CUREDUCE_CACHEFILE_H
#define CUREDUCE_CACHEFILE_H

#include <stdbool.h>
#include <stddef.h>

/* mkdir -p; true when the folder exists afterwards. errno tells why not. */
bool cureduce_make_directories(const char *path);

/* Reads the whole file if it is at most max_size bytes. false when missing, unreadable or too
 * large. The caller frees *data. */
bool cureduce_read_file(const char *path, size_t max_size, void **data, size_t *size);

/* Writes data as `path`, atomically. false (errno set, nothing left behind) on failure. After a
 * write, temporary files that killed writers left in the folder over an hour ago are removed. */
bool cureduce_write_file_atomic(const char *path, const void *data, size_t size);

/* Where the caches live: settings_dir if given, else $CUREDUCE_CACHE_DIR, $XDG_CACHE_HOME/cureduce,
 * $HOME/.cache/cureduce. false when none can be named (no HOME). */
bool cureduce_cache_location(const char *settings_dir, char *path, size_t path_size);

#endif
