#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cachefile.h"

bool cureduce_make_directories(const char *path) {
  char partial[4096];
  size_t length = strlen(path);
  if (length == 0 || length >= sizeof partial) {
    errno = ENAMETOOLONG;
    return false;
  }
  memcpy(partial, path, length + 1);
  for (char *slash = partial + 1; (slash = strchr(slash, '/')); slash++) {
    *slash = '\0';
    if (mkdir(partial, 0700) != 0 && errno != EEXIST)
      return false;
    *slash = '/';
  }
  if (mkdir(partial, 0700) != 0 && errno != EEXIST)
    return false;
  struct stat info;
  if (stat(partial, &info) != 0)
    return false;
  if (!S_ISDIR(info.st_mode)) {
    errno = ENOTDIR;
    return false;
  }
  return true;
}

/* Reads the whole of an open regular file of at most max_size bytes, and closes it. */
static bool read_open_file(int fd, const struct stat *info, size_t max_size, void **data, size_t *size) {
  bool ok = false;
  if (S_ISREG(info->st_mode) && (size_t)info->st_size <= max_size) {
    size_t want = (size_t)info->st_size, got = 0;
    unsigned char *buffer = malloc(want ? want : 1);
    while (buffer && got < want) {
      ssize_t n = read(fd, buffer + got, want - got);
      if (n <= 0)
        break;
      got += (size_t)n;
    }
    if (buffer && got == want) {
      *data = buffer;
      *size = want;
      ok = true;
    } else {
      free(buffer);
    }
  }
  close(fd);
  return ok;
}

bool cureduce_read_file(const char *path, size_t max_size, void **data, size_t *size) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  struct stat info;
  if (fstat(fd, &info) != 0) {
    close(fd);
    return false;
  }
  return read_open_file(fd, &info, max_size, data, size);
}

const char *cureduce_folder_failure(const char *path) {
  int saved = errno;
  struct stat info;
  bool exists = stat(path, &info) == 0 && S_ISDIR(info.st_mode);
  errno = saved;
  return exists ? "cannot be written" : "cannot be created";
}

static bool passes_trust_rule(const struct stat *info) {
  return (info->st_uid == geteuid() || info->st_uid == 0) && (info->st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

bool cureduce_folder_is_trusted(const char *path, char *why, size_t why_size) {
  struct stat info;
  if (stat(path, &info) != 0) {
    snprintf(why, why_size, "%s cannot be examined (%s)", path, strerror(errno));
    return false;
  }
  if (S_ISDIR(info.st_mode) && passes_trust_rule(&info))
    return true;
  char owners[48] = "root";
  if (geteuid() != 0)
    snprintf(owners, sizeof owners, "uid %u or root", (unsigned)geteuid());
  snprintf(why, why_size,
           "%s is not trusted: owned by uid %u with mode %04o; cureduce uses only cache folders owned by %s that no "
           "one else can write",
           path, (unsigned)info.st_uid, (unsigned)(info.st_mode & 07777), owners);
  errno = EPERM;
  return false;
}

bool cureduce_read_trusted_file(const char *path, size_t max_size, void **data, size_t *size) {
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return false;
  struct stat info;
  if (fstat(fd, &info) != 0 || !passes_trust_rule(&info)) {
    close(fd);
    errno = EPERM;
    return false;
  }
  return read_open_file(fd, &info, max_size, data, size);
}

static bool write_all(int fd, const void *data, size_t size) {
  const unsigned char *bytes = data;
  while (size > 0) {
    ssize_t n = write(fd, bytes, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    bytes += n;
    size -= (size_t)n;
  }
  return true;
}

/* A writer killed mid-write leaves its temporary file behind. No reader takes it for an entry,
 * but it takes space, so each write removes those of its folder that are older than an hour:
 * a write takes milliseconds, so no live writer's file is that old. Best effort: a folder that
 * cannot be listed keeps them. */
static void remove_abandoned_temporaries(const char *path) {
  char folder[4200];
  const char *slash = strrchr(path, '/');
  int length = slash ? snprintf(folder, sizeof folder, "%.*s", (int)(slash - path), path)
                     : snprintf(folder, sizeof folder, ".");
  DIR *dir = length > 0 && (size_t)length < sizeof folder ? opendir(length ? folder : "/") : NULL;
  if (!dir)
    return;
  time_t hour_ago = time(NULL) - 3600;
  struct stat status;
  for (struct dirent *item; (item = readdir(dir));)
    if (strstr(item->d_name, ".tmp.") && fstatat(dirfd(dir), item->d_name, &status, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISREG(status.st_mode) && status.st_mtime < hour_ago)
      unlinkat(dirfd(dir), item->d_name, 0);
  closedir(dir);
}

bool cureduce_write_file_atomic(const char *path, const void *data, size_t size) {
  static atomic_uint counter;
  char temporary[4200];
  int length = snprintf(temporary, sizeof temporary, "%s.tmp.%ld.%u", path, (long)getpid(),
                        atomic_fetch_add(&counter, 1));
  if (length < 0 || (size_t)length >= sizeof temporary) {
    errno = ENAMETOOLONG;
    return false;
  }
  int fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0)
    return false;
  bool ok = write_all(fd, data, size) && fsync(fd) == 0;
  int saved = errno;
  ok = close(fd) == 0 && ok;
  if (ok && rename(temporary, path) == 0) {
    remove_abandoned_temporaries(path);
    return true;
  }
  saved = errno ? errno : saved;
  unlink(temporary);
  errno = saved;
  return false;
}

bool cureduce_cache_location(const char *settings_dir, char *path, size_t path_size) {
  const char *env_dir = getenv("CUREDUCE_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME");
  const char *home = getenv("HOME");
  int length;
  if (settings_dir && *settings_dir)
    length = snprintf(path, path_size, "%s", settings_dir);
  else if (env_dir && *env_dir)
    length = snprintf(path, path_size, "%s", env_dir);
  else if (xdg && *xdg)
    length = snprintf(path, path_size, "%s/cureduce", xdg);
  else if (home && *home)
    length = snprintf(path, path_size, "%s/.cache/cureduce", home);
  else
    return false;
  return length > 0 && (size_t)length < path_size;
}
