/* The on-disk kernel cache without a GPU: SHA-256, entry encoding, every kind of bad file as a
 * miss, stores and loads through a real folder, a read-only folder, a folder that is a file, and
 * the trust rule: folders others can write or own, symbolic links, what the library creates. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "build.h"
#include "cachefile.h"
#include "diskcache.h"
#include "harness.h"
#include "sha256.h"


static void hex(const unsigned char *digest, char *out) {
  for (int i = 0; i < 32; i++)
    sprintf(out + 2 * i, "%02x", digest[i]);
}

START_TEST(test_sha256_known_answers) {
  unsigned char digest[32];
  char text[65];
  cureduce_sha256("abc", 3, digest);
  hex(digest, text);
  ck_assert_str_eq(text, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  cureduce_sha256("", 0, digest);
  hex(digest, text);
  ck_assert_str_eq(text, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  const char *two_blocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  cureduce_sha256(two_blocks, strlen(two_blocks), digest);
  hex(digest, text);
  ck_assert_str_eq(text, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  cureduce_sha256_state state; /* a million 'a', fed in uneven pieces */
  cureduce_sha256_init(&state);
  char as[1000];
  memset(as, 'a', sizeof as);
  for (int i = 0, step = 1; i < 1000000; i += step, step = step % 997 + 1)
    cureduce_sha256_update(&state, as, (size_t)(i + step <= 1000000 ? step : 1000000 - i));
  cureduce_sha256_final(&state, digest);
  hex(digest, text);
  ck_assert_str_eq(text, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}
END_TEST

static cureduce_binary random_binary(size_t size) {
  unsigned char *data = malloc(size);
  for (size_t i = 0; i < size; i++)
    data[i] = (unsigned char)cureduce_ref_random();
  data[0] = 0x7f;
  return (cureduce_binary){data, size, true};
}

START_TEST(test_entry_round_trip_and_every_corruption) {
  cureduce_kernel_key key, other_key, other_arch;
  cureduce_kernel_key_make("kernel source", 90, &key);
  cureduce_kernel_key_make("kernel source ", 90, &other_key);
  cureduce_kernel_key_make("kernel source", 100, &other_arch);
  cureduce_binary binary = random_binary(300), view;
  void *entry;
  size_t size;
  int version;
  ck_assert(cureduce_diskcache_encode(&key, 13000, &binary, &entry, &size));
  ck_assert(cureduce_diskcache_decode(&key, entry, size, &view, &version));
  ck_assert_int_eq(version, 13000);
  ck_assert(view.is_cubin && view.size == 300 && memcmp(view.data, binary.data, 300) == 0);
  ck_assert(!cureduce_diskcache_decode(&other_key, entry, size, &view, &version));
  ck_assert(!cureduce_diskcache_decode(&other_arch, entry, size, &view, &version));
  unsigned char *bytes = entry;
  for (size_t i = 0; i < size; i++) { /* any flipped bit is caught */
    bytes[i] ^= (unsigned char)(1u << (i % 8));
    ck_assert_msg(!cureduce_diskcache_decode(&key, entry, size, &view, &version), "flip at byte %zu passed", i);
    bytes[i] ^= (unsigned char)(1u << (i % 8));
  }
  for (size_t cut = 0; cut < size; cut++) /* any truncation is caught */
    ck_assert_msg(!cureduce_diskcache_decode(&key, entry, cut, &view, &version), "cut at %zu passed", cut);
  bytes[8] = 2; /* a later format version is foreign */
  ck_assert(!cureduce_diskcache_decode(&key, entry, size, &view, &version));
  free(entry);
  free(binary.data);
}
END_TEST

static char *make_temporary_folder(void) {
  char *dir = harness_temporary_folder();
  ck_assert_ptr_nonnull(dir);
  return dir;
}

static void entry_path(const char *root, const cureduce_kernel_key *key, int version, char *path, size_t size) {
  int length = snprintf(path, size, "%s/kernels/", root);
  for (int i = 0; i < 16; i++)
    length += snprintf(path + length, size - (size_t)length, "%02x", key->digest[i]);
  snprintf(path + length, size - (size_t)length, "/%d.bin", version);
}

START_TEST(test_store_load_and_bad_files_on_disk) {
  char *root = make_temporary_folder();
  cureduce_diskcache cache;
  cureduce_diskcache_open(&cache, root, &harness_keep_warnings);
  cureduce_kernel_key key;
  cureduce_kernel_key_make("another kernel", 90, &key);
  cureduce_binary binary = random_binary(1000), loaded;
  ck_assert(!cureduce_diskcache_load(&cache, &key, &loaded));
  cureduce_diskcache_store(&cache, &key, 12080, &binary);
  ck_assert(cureduce_diskcache_load(&cache, &key, &loaded));
  ck_assert(loaded.size == 1000 && memcmp(loaded.data, binary.data, 1000) == 0);
  free(loaded.data);

  /* A newer NVRTC's entry wins; a corrupt newer entry is passed over for the valid older one. */
  binary.size = 900;
  cureduce_diskcache_store(&cache, &key, 13000, &binary);
  ck_assert(cureduce_diskcache_load(&cache, &key, &loaded) && loaded.size == 900);
  free(loaded.data);
  char path[4096];
  entry_path(root, &key, 13000, path, sizeof path);
  ck_assert_int_eq(truncate(path, 500), 0);
  ck_assert(cureduce_diskcache_load(&cache, &key, &loaded) && loaded.size == 1000);
  free(loaded.data);
  /* Garbage under the right name is a miss, and the next store replaces it. */
  entry_path(root, &key, 12080, path, sizeof path);
  FILE *file = fopen(path, "w");
  fputs("not a cache entry", file);
  fclose(file);
  ck_assert(!cureduce_diskcache_load(&cache, &key, &loaded));
  cureduce_diskcache_store(&cache, &key, 13000, &binary);
  ck_assert(cureduce_diskcache_load(&cache, &key, &loaded) && loaded.size == 900);
  free(loaded.data);
  ck_assert_int_eq(harness_warnings, 0);
  cureduce_diskcache_close(&cache);
  free(binary.data);
  ck_assert(harness_remove_tree(root));
}
END_TEST

START_TEST(test_read_only_folder_reads_and_warns_once) {
  char *root = make_temporary_folder();
  cureduce_diskcache cache;
  cureduce_diskcache_open(&cache, root, &harness_keep_warnings);
  cureduce_kernel_key key, key2;
  cureduce_kernel_key_make("warm kernel", 90, &key);
  cureduce_kernel_key_make("cold kernel", 90, &key2);
  cureduce_binary binary = random_binary(500), loaded;
  cureduce_diskcache_store(&cache, &key, 13000, &binary);
  cureduce_diskcache_close(&cache);
  char kernels[4200];
  snprintf(kernels, sizeof kernels, "%s/kernels", root);
  ck_assert(harness_make_readable_by_all(root));
  ck_assert_int_eq(chmod(kernels, 0555), 0);
  pid_t child = fork();
  if (child == 0) { /* the unprivileged part runs in a child, so the parent can clean up */
    if (!harness_drop_privileges())
      _exit(2);
    harness_warnings = 0;
    cureduce_diskcache_open(&cache, root, &harness_keep_warnings);
    bool warm = cureduce_diskcache_load(&cache, &key, &loaded); /* a pre-warmed read-only cache is used */
    cureduce_diskcache_store(&cache, &key2, 13000, &binary);
    cureduce_diskcache_store(&cache, &key2, 13000, &binary);
    bool cold = cureduce_diskcache_load(&cache, &key2, &loaded);
    _exit(warm && !cold && harness_warnings == 1 ? 0 : 1);
  }
  harness_expect_child_success(child, "read-only folder: not one warning, or a bad read");
  free(binary.data);
  ck_assert(harness_remove_tree(root));
}
END_TEST

START_TEST(test_folder_that_is_a_file) {
  char *root = make_temporary_folder();
  char file_path[4096];
  snprintf(file_path, sizeof file_path, "%s/plain-file", root);
  FILE *file = fopen(file_path, "w");
  fclose(file);
  harness_warnings = 0;
  cureduce_diskcache cache;
  cureduce_diskcache_open(&cache, file_path, &harness_keep_warnings);
  ck_assert_int_eq(harness_warnings, 1);
  cureduce_kernel_key key;
  cureduce_kernel_key_make("k", 90, &key);
  cureduce_binary binary = random_binary(64), loaded;
  cureduce_diskcache_store(&cache, &key, 13000, &binary);
  ck_assert(!cureduce_diskcache_load(&cache, &key, &loaded));
  ck_assert_int_eq(harness_warnings, 1);
  cureduce_diskcache_close(&cache);
  free(binary.data);
  ck_assert(harness_remove_tree(root));
}
END_TEST

START_TEST(test_cache_location_precedence) {
  char path[4096];
  setenv("HOME", "/home/someone", 1);
  unsetenv("XDG_CACHE_HOME");
  unsetenv("CUREDUCE_CACHE_DIR");
  ck_assert(cureduce_cache_location(NULL, path, sizeof path));
  ck_assert_str_eq(path, "/home/someone/.cache/cureduce");
  setenv("XDG_CACHE_HOME", "/xdg", 1);
  ck_assert(cureduce_cache_location(NULL, path, sizeof path));
  ck_assert_str_eq(path, "/xdg/cureduce");
  setenv("CUREDUCE_CACHE_DIR", "/env/dir", 1);
  ck_assert(cureduce_cache_location(NULL, path, sizeof path));
  ck_assert_str_eq(path, "/env/dir");
  ck_assert(cureduce_cache_location("/settings/dir", path, sizeof path));
  ck_assert_str_eq(path, "/settings/dir");
  unsetenv("CUREDUCE_CACHE_DIR");
  unsetenv("XDG_CACHE_HOME");
  unsetenv("HOME");
  ck_assert(!cureduce_cache_location(NULL, path, sizeof path));
}
END_TEST

START_TEST(test_atomic_write_leaves_no_temporary) {
  char *root = make_temporary_folder();
  char path[4096];
  snprintf(path, sizeof path, "%s/file", root);
  ck_assert(cureduce_write_file_atomic(path, "one", 3));
  ck_assert(cureduce_write_file_atomic(path, "second", 6));
  void *data;
  size_t size;
  ck_assert(cureduce_read_file(path, 100, &data, &size) && size == 6 && memcmp(data, "second", 6) == 0);
  free(data);
  ck_assert(!cureduce_read_file(path, 5, &data, &size)); /* over the size limit */
  snprintf(path, sizeof path, "%s/missing-folder/file", root);
  ck_assert(!cureduce_write_file_atomic(path, "x", 1));
  char command[4200];
  snprintf(command, sizeof command, "test $(ls -A '%s' | wc -l) -eq 1", root);
  ck_assert_int_eq(system(command), 0);
  ck_assert(harness_remove_tree(root));
}
END_TEST

/* Every .bin under the kernels folder decodes as a whole entry for `key`; returns how many. */
static int count_valid_entries(const char *root, const cureduce_kernel_key *key) {
  char folder[4096];
  entry_path(root, key, 0, folder, sizeof folder);
  *strrchr(folder, '/') = '\0';
  DIR *dir = opendir(folder);
  int valid = 0;
  for (struct dirent *item; dir && (item = readdir(dir));) {
    size_t length = strlen(item->d_name);
    if (length < 4 || strcmp(item->d_name + length - 4, ".bin") != 0)
      continue; /* a killed writer's temporary file is not an entry */
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", folder, item->d_name);
    void *data;
    size_t size;
    cureduce_binary view;
    int version;
    ck_assert(cureduce_read_file(path, 64 << 20, &data, &size));
    ck_assert_msg(cureduce_diskcache_decode(key, data, size, &view, &version), "%s is a half-written entry", path);
    free(data);
    valid++;
  }
  if (dir)
    closedir(dir);
  return valid;
}

/* Two temporary files as killed writers leave them, one two hours old and one fresh: the next
 * store into their folder removes the old one only (a fresh one may be a live writer's). */
static void check_abandoned_temporaries_removed(const char *root, const cureduce_kernel_key *key,
                                                cureduce_diskcache *cache) {
  char entry[4096], old[4200], fresh[4200];
  entry_path(root, key, 0, entry, sizeof entry);
  snprintf(old, sizeof old, "%s.tmp.999999.1", entry);
  snprintf(fresh, sizeof fresh, "%s.tmp.999999.2", entry);
  ck_assert(cureduce_write_file_atomic(old, "x", 1) && cureduce_write_file_atomic(fresh, "y", 1));
  struct timespec two_hours_ago[2] = {{time(NULL) - 7200, 0}, {time(NULL) - 7200, 0}};
  ck_assert(utimensat(AT_FDCWD, old, two_hours_ago, 0) == 0);
  cureduce_binary binary = random_binary(4096);
  cureduce_diskcache_store(cache, key, 14001, &binary);
  free(binary.data);
  ck_assert_msg(access(old, F_OK) != 0, "%s stayed", old);
  ck_assert_msg(access(fresh, F_OK) == 0, "%s was removed", fresh);
  unlink(fresh);
}

/* A writer killed with SIGKILL at random moments of storing entries: the cache it leaves holds
 * whole entries or none, never a half file, and the next process reads and writes it as usual. */
START_TEST(test_writer_killed_mid_write) {
  char *root = make_temporary_folder();
  cureduce_kernel_key key;
  cureduce_kernel_key_make("a kernel written while killed", 90, &key);
  for (int round = 0; round < 12; round++) {
    pid_t writer = fork();
    if (writer == 0) {
      cureduce_diskcache cache;
      cureduce_diskcache_open(&cache, root, &harness_keep_warnings);
      for (int version = 1;; version = version % 5 + 1) { /* large entries, so kills land inside writes */
        cureduce_binary binary = random_binary((size_t)(1 + version) << 20);
        cureduce_diskcache_store(&cache, &key, 13000 + version, &binary);
        free(binary.data);
      }
    }
    harness_kill_after_random_pause(writer, 2, 40);
    count_valid_entries(root, &key);
  }
  cureduce_diskcache cache;
  cureduce_diskcache_open(&cache, root, &harness_keep_warnings);
  cureduce_binary binary = random_binary(4096), loaded;
  cureduce_diskcache_store(&cache, &key, 14000, &binary);
  ck_assert(cureduce_diskcache_load(&cache, &key, &loaded) && loaded.size == 4096);
  ck_assert_int_ge(count_valid_entries(root, &key), 1);
  check_abandoned_temporaries_removed(root, &key, &cache);
  free(loaded.data);
  free(binary.data);
  cureduce_diskcache_close(&cache);
  ck_assert(harness_remove_tree(root));
}
END_TEST

/* A full disk, as RLIMIT_FSIZE makes it: the store fails with one warning, the kernel stays in
 * memory, and no partial file is left behind. Forked: the limit stays in the child. */
START_TEST(test_full_disk) {
  char *root = make_temporary_folder();
  pid_t child = fork();
  if (child == 0) {
    signal(SIGXFSZ, SIG_IGN); /* a write past the limit then fails with EFBIG instead of killing */
    struct rlimit limit = {4096, 4096};
    setrlimit(RLIMIT_FSIZE, &limit);
    harness_warnings = 0;
    cureduce_diskcache cache;
    cureduce_diskcache_open(&cache, root, &harness_keep_warnings);
    cureduce_kernel_key key;
    cureduce_kernel_key_make("a kernel for a full disk", 90, &key);
    cureduce_binary big = random_binary(1 << 20), loaded;
    cureduce_diskcache_store(&cache, &key, 13000, &big);
    cureduce_diskcache_store(&cache, &key, 13000, &big);
    bool missed = !cureduce_diskcache_load(&cache, &key, &loaded);
    _exit(missed && harness_warnings == 1 && count_valid_entries(root, &key) == 0 ? 0 : 1);
  }
  harness_expect_child_success(child, "full disk: not one warning, or a file left behind");
  char command[4200];
  snprintf(command, sizeof command, "test -z \"$(find '%s' -type f)\"", root);
  ck_assert_int_eq(system(command), 0);
  ck_assert(harness_remove_tree(root));
}
END_TEST

/* ---- the trust rule ------------------------------------------------------------------------------ */


static mode_t mode_of(const char *path) {
  struct stat info;
  ck_assert_int_eq(lstat(path, &info), 0);
  return info.st_mode;
}

static void entry_folder_of(const char *root, const cureduce_kernel_key *key, char *folder, size_t size) {
  entry_path(root, key, 0, folder, size);
  *strrchr(folder, '/') = '\0';
}

/* A root writable by others is not used: one warning naming it, its owner and mode; kernels are
 * still compiled (into memory), and nothing lands in it. */
START_TEST(test_root_writable_by_others_is_refused) {
  char *root = make_temporary_folder();
  ck_assert_int_eq(chmod(root, 0777), 0);
  harness_warnings = 0;
  cureduce_diskcache cache;
  cureduce_diskcache_open(&cache, root, &harness_keep_warnings);
  ck_assert_int_eq(harness_warnings, 1);
  char uid[32];
  snprintf(uid, sizeof uid, "uid %u", (unsigned)geteuid());
  ck_assert_msg(strstr(harness_last_warning, root) && strstr(harness_last_warning, "mode 0777") && strstr(harness_last_warning, uid) &&
                    strstr(harness_last_warning, "not trusted"),
                "%s", harness_last_warning);
  cureduce_spec spec = cureduce_spec_heuristic(CUREDUCE_OP_SUM, CUREDUCE_F32, CUREDUCE_F32, 2048);
  cureduce_binary binary;
  ck_assert_msg(cureduce_build_kernel(&spec, 90, &cache, &harness_keep_warnings, &binary) == CUREDUCE_STATUS_OK, "%s",
                cureduce_last_error_detail());
  ck_assert(binary.is_cubin && memcmp(binary.data, "\x7f" "ELF", 4) == 0);
  free(binary.data);
  char command[4200];
  snprintf(command, sizeof command, "test -z \"$(find '%s' -type f)\"", root);
  ck_assert_int_eq(system(command), 0);
  ck_assert_int_eq(harness_warnings, 1);
  cureduce_diskcache_close(&cache);
  ck_assert(harness_remove_tree(root));
}
END_TEST

/* A root another user owns is not used, whatever its mode. Needs root, to give the folder away. */
START_TEST(test_root_of_another_user_is_refused) {
  if (geteuid() != 0) {
    printf("test_root_of_another_user_is_refused: not root, so no folder can be given away; skipped\n");
    return;
  }
  char *root = make_temporary_folder();
  char kernels[4200];
  snprintf(kernels, sizeof kernels, "%s/kernels", root);
  ck_assert_int_eq(mkdir(kernels, 0755), 0);
  ck_assert_int_eq(chown(root, 65534, 65534), 0);
  ck_assert_int_eq(chown(kernels, 65534, 65534), 0);
  harness_warnings = 0;
  cureduce_diskcache cache;
  cureduce_diskcache_open(&cache, root, &harness_keep_warnings);
  ck_assert_int_eq(harness_warnings, 1);
  ck_assert_msg(strstr(harness_last_warning, "owned by uid 65534 with mode 0755"), "%s", harness_last_warning);
  ck_assert_str_eq(cache.root, "");
  cureduce_diskcache_close(&cache);
  ck_assert(harness_remove_tree(root));
}
END_TEST

/* A cache in a fresh folder holding one stored entry, for the trust tests. */
typedef struct stored_entry {
  char *root;
  cureduce_diskcache cache;
  cureduce_kernel_key key;
  cureduce_binary binary;
} stored_entry;

static void store_one_entry(stored_entry *e, const char *kernel) {
  e->root = make_temporary_folder();
  harness_warnings = 0;
  cureduce_diskcache_open(&e->cache, e->root, &harness_keep_warnings);
  cureduce_kernel_key_make(kernel, 90, &e->key);
  e->binary = random_binary(256);
  cureduce_diskcache_store(&e->cache, &e->key, 13000, &e->binary);
}

static void remove_entry(stored_entry *e) {
  cureduce_diskcache_close(&e->cache);
  free(e->binary.data);
  ck_assert(harness_remove_tree(e->root));
}

static bool loads(stored_entry *e) {
  cureduce_binary loaded;
  bool hit = cureduce_diskcache_load(&e->cache, &e->key, &loaded);
  if (hit)
    free(loaded.data);
  return hit;
}

/* What the library creates: folders 0700, entries 0600. */
START_TEST(test_created_folders_and_files_are_private) {
  stored_entry e;
  store_one_entry(&e, "private kernel");
  char kernels[4200], folder[4096], path[4096];
  snprintf(kernels, sizeof kernels, "%s/kernels", e.root);
  entry_folder_of(e.root, &e.key, folder, sizeof folder);
  entry_path(e.root, &e.key, 13000, path, sizeof path);
  ck_assert_int_eq(mode_of(kernels) & 07777, 0700);
  ck_assert_int_eq(mode_of(folder) & 07777, 0700);
  ck_assert_int_eq(mode_of(path) & 07777, 0600);
  remove_entry(&e);
}
END_TEST

/* An entry folder made group-writable after the first run is passed over, with one warning, until
 * it is private again. */
START_TEST(test_entry_folder_made_group_writable_is_refused) {
  stored_entry e;
  store_one_entry(&e, "shared kernel");
  ck_assert(loads(&e));
  char folder[4096];
  entry_folder_of(e.root, &e.key, folder, sizeof folder);
  ck_assert_int_eq(chmod(folder, 0770), 0);
  ck_assert(!loads(&e));
  cureduce_diskcache_store(&e.cache, &e.key, 13010, &e.binary);
  ck_assert(!loads(&e));
  ck_assert_int_eq(harness_warnings, 1);
  ck_assert_msg(strstr(harness_last_warning, folder) && strstr(harness_last_warning, "mode 0770"), "%s",
                harness_last_warning);
  ck_assert_int_eq(count_valid_entries(e.root, &e.key), 1); /* the store in the untrusted folder wrote nothing */
  ck_assert_int_eq(chmod(folder, 0700), 0);
  ck_assert(loads(&e));
  remove_entry(&e);
}
END_TEST

/* An entry replaced by a symbolic link to a valid entry is not loaded, and the next store puts a
 * regular file in its place. */
START_TEST(test_symlinked_entry_is_not_loaded) {
  stored_entry e;
  store_one_entry(&e, "linked kernel");
  char path[4096], elsewhere[4200];
  entry_path(e.root, &e.key, 13000, path, sizeof path);
  snprintf(elsewhere, sizeof elsewhere, "%s/planted.bin", e.root);
  ck_assert_int_eq(rename(path, elsewhere), 0);
  ck_assert_int_eq(symlink(elsewhere, path), 0);
  ck_assert(!loads(&e));
  cureduce_diskcache_store(&e.cache, &e.key, 13000, &e.binary);
  ck_assert(S_ISREG(mode_of(path)));
  ck_assert(loads(&e));
  remove_entry(&e);
}
END_TEST

/* A root-owned 0755 cache (warmed by root, shared read-only) is used by another user: trusted,
 * since nobody but root can write it. Needs root, to be another user in a child. */
START_TEST(test_root_owned_shared_cache_is_used) {
  if (geteuid() != 0) {
    printf("test_root_owned_shared_cache_is_used: not root; skipped\n");
    return;
  }
  stored_entry e;
  store_one_entry(&e, "warmed by root");
  cureduce_diskcache_close(&e.cache);
  ck_assert(harness_make_readable_by_all(e.root));
  ck_assert_int_eq(mode_of(e.root) & 07777, 0755);
  pid_t child = fork();
  if (child == 0) {
    if (!harness_drop_privileges())
      _exit(2);
    harness_warnings = 0;
    cureduce_diskcache_open(&e.cache, e.root, &harness_keep_warnings);
    _exit(loads(&e) && harness_warnings == 0 ? 0 : 1);
  }
  harness_expect_child_success(child, "a root-owned 0755 cache was not used by another user");
  cureduce_diskcache_open(&e.cache, e.root, &harness_keep_warnings); /* for remove_entry's close */
  remove_entry(&e);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("cache");
  TCase *cache = tcase_create("cache");
  tcase_add_test(cache, test_sha256_known_answers);
  tcase_add_test(cache, test_entry_round_trip_and_every_corruption);
  tcase_add_test(cache, test_store_load_and_bad_files_on_disk);
  tcase_add_test(cache, test_read_only_folder_reads_and_warns_once);
  tcase_add_test(cache, test_folder_that_is_a_file);
  tcase_add_test(cache, test_cache_location_precedence);
  tcase_add_test(cache, test_atomic_write_leaves_no_temporary);
  tcase_add_test(cache, test_writer_killed_mid_write);
  tcase_add_test(cache, test_full_disk);
  tcase_add_test(cache, test_root_writable_by_others_is_refused);
  tcase_add_test(cache, test_root_of_another_user_is_refused);
  tcase_add_test(cache, test_created_folders_and_files_are_private);
  tcase_add_test(cache, test_entry_folder_made_group_writable_is_refused);
  tcase_add_test(cache, test_symlinked_entry_is_not_loaded);
  tcase_add_test(cache, test_root_owned_shared_cache_is_used);
  suite_add_tcase(suite, cache);
  return harness_run(suite, false);
}
