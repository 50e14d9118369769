/* File helpers for the caches: create folders, read a whole file, write a file so that a reader
 * sees the old file or the whole new one, never a part (a temporary file in the same folder,
 * flushed to disk, then renamed into place), and the trust rule.
 *
 * The trust rule: the caches hold machine code that the process loads and runs, and tuning that
 * decides which code runs, so a folder of theirs is used, and a file of theirs is read, only when
 * it is owned by the user the process runs as (its effective uid) or by root, and no one else
 * (group or others) may write it. The library creates its folders 0700 and its files 0600. */
#ifndef CUREDUCE_CACHEFILE_H
#define CUREDUCE_CACHEFILE_H

#include <stdbool.h>
#include <stddef.h>

/* mkdir -p, new folders 0700; true when the folder exists afterwards. errno tells why not. */
bool cureduce_make_directories(const char *path);

/* Reads the whole file if it is at most max_size bytes. false when missing, unreadable or too
 * large. The caller frees *data. */
bool cureduce_read_file(const char *path, size_t max_size, void **data, size_t *size);

/* Why cureduce_make_directories(path) failed, as words: "cannot be written" when the folder
 * exists (its permissions), else "cannot be created". */
const char *cureduce_folder_failure(const char *path);

/* The trust rule for a folder (symbolic links followed: what counts is the folder reached). false
 * when it fails, with a sentence naming the folder, its owner and its mode in `why`, or when it
 * cannot be examined (errno set, `why` says so). */
bool cureduce_folder_is_trusted(const char *path, char *why, size_t why_size);

/* cureduce_read_file for a file of the caches: a symbolic link is not followed, and the file must
 * pass the trust rule, checked on the open descriptor so nothing can be swapped in between. */
bool cureduce_read_trusted_file(const char *path, size_t max_size, void **data, size_t *size);

/* Writes data as `path` (mode 0600), atomically. false (errno set, nothing left behind) on failure. After a
 * write, temporary files that killed writers left in the folder over an hour ago are removed. */
bool cureduce_write_file_atomic(const char *path, const void *data, size_t size);

/* Where the caches live: settings_dir if given, else $CUREDUCE_CACHE_DIR, $XDG_CACHE_HOME/cureduce,
 * $HOME/.cache/cureduce. false when none can be named (no HOME). */
bool cureduce_cache_location(const char *settings_dir, char *path, size_t path_size);

#endif
