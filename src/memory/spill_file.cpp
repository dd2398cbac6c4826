// Spill files: header + payload, checksummed in 4 MiB pieces so that each piece is hashed while it is
// still in cache and then copied into the page cache (one pass over DRAM instead of two).
#include "memory/spill_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "slab/core/error.hpp"
#include "slab/core/fault.hpp"
#include "slab/core/units.hpp"
#include "slab/memory/checksum.hpp"

namespace slab::detail {
namespace {

constexpr char kMagic[8] = {'S', 'L', 'A', 'B', 'S', 'P', 'L', '1'};
constexpr std::uint64_t kPiece = kSpillPiece;

std::string errno_text(int err) { return std::strerror(err); }

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  [[nodiscard]] int get() const noexcept { return fd_; }
  /// Close now and report the error (close can report a deferred write error on some file systems).
  int close_now() noexcept {
    const int rc = ::close(fd_);
    fd_ = -1;
    return rc;
  }

 private:
  int fd_;
};

// Writes all of [data, data + n) at `offset`; returns 0 or an errno value.
int pwrite_all(int fd, const std::byte* data, std::uint64_t n, std::uint64_t offset) noexcept {
  while (n > 0) {
    const ssize_t w = ::pwrite(fd, data, n, static_cast<off_t>(offset));
    if (w < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (w == 0) return EIO;
    data += w;
    n -= static_cast<std::uint64_t>(w);
    offset += static_cast<std::uint64_t>(w);
  }
  return 0;
}

// Reads up to n bytes at `offset`; returns the bytes read (short only at end of file), or -errno.
std::int64_t pread_all(int fd, std::byte* out, std::uint64_t n, std::uint64_t offset) noexcept {
  std::uint64_t got = 0;
  while (got < n) {
    const ssize_t r = ::pread(fd, out + got, n - got, static_cast<off_t>(offset + got));
    if (r < 0) {
      if (errno == EINTR) continue;
      return -errno;
    }
    if (r == 0) break;
    got += static_cast<std::uint64_t>(r);
  }
  return static_cast<std::int64_t>(got);
}

[[noreturn]] void throw_write_error(int err, const std::string& path, const std::string& dir, std::uint64_t written,
                                    std::uint64_t total) {
  if (err == ENOSPC || err == EDQUOT) {
    SLAB_FAIL(IoError, "spill directory " + dir + " is full (" + errno_text(err) + ") while writing " + path + " (" +
                           format_bytes(written) + " of " + format_bytes(total) +
                           " written); free space there, point --spill-dir elsewhere or raise --memory-limit");
  }
  SLAB_FAIL(IoError, "cannot write spill file " + path + ": " + errno_text(err));
}

}  // namespace

std::uint64_t write_spill_file(const std::string& path, const std::string& dir, const std::byte* data,
                               std::uint64_t size, std::uint64_t buffer_id, const SpillStaging* staging) {
  Fd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (fd.get() < 0) {
    const int err = errno;
    if (err == ENOSPC || err == EDQUOT) throw_write_error(err, path, dir, 0, size);
    SLAB_FAIL(IoError, "cannot create spill file " + path + ": " + errno_text(err));
  }
  // umask can only remove bits, but be exact: spill files are private to the user.
  (void)::fchmod(fd.get(), 0600);
  Checksum64 hash;
  std::uint64_t done = 0;
  int err = 0;
  while (done < size && err == 0) {
    const std::uint64_t n = size - done < kPiece ? size - done : kPiece;
    const std::byte* piece = data + done;
    if (staging != nullptr) {
      try {
        staging->copy(staging->block, piece, n);
      } catch (...) {
        ::unlink(path.c_str());
        throw;
      }
      piece = staging->block;
    }
    hash.update(piece, n);
    SLAB_FAULT_POINT("spill");
    err = pwrite_all(fd.get(), piece, n, sizeof(SpillFileHeader) + done);
    if (err == 0) done += n;
  }
  SpillFileHeader header{};
  std::memcpy(header.magic, kMagic, sizeof kMagic);
  header.size = size;
  header.checksum = hash.digest();
  header.buffer_id = buffer_id;
  if (err == 0) err = pwrite_all(fd.get(), reinterpret_cast<const std::byte*>(&header), sizeof header, 0);
  if (err == 0 && fd.close_now() != 0) err = errno;
  if (err != 0) {
    ::unlink(path.c_str());
    throw_write_error(err, path, dir, done, size);
  }
  return header.checksum;
}

void read_spill_file(const std::string& path, std::byte* out, std::uint64_t size, std::uint64_t expected_checksum,
                     const SpillStaging* staging) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (fd.get() < 0) {
    const int err = errno;
    SLAB_FAIL(IoError, "cannot open spill file " + path + ": " + errno_text(err));
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) {
    const int err = errno;
    SLAB_FAIL(IoError, "cannot stat spill file " + path + ": " + errno_text(err));
  }
  const std::uint64_t expected_bytes = sizeof(SpillFileHeader) + size;
  const auto actual_bytes = static_cast<std::uint64_t>(st.st_size);
  SLAB_EXPECTS(actual_bytes >= expected_bytes, IntegrityError,
               "spill file " + path + " is truncated: " + std::to_string(actual_bytes) + " bytes, expected " +
                   std::to_string(expected_bytes));
  SLAB_EXPECTS(actual_bytes == expected_bytes, IntegrityError,
               "spill file " + path + " is " + std::to_string(actual_bytes) + " bytes, expected " +
                   std::to_string(expected_bytes));
  SpillFileHeader header{};
  const std::int64_t h = pread_all(fd.get(), reinterpret_cast<std::byte*>(&header), sizeof header, 0);
  if (h < 0) SLAB_FAIL(IoError, "cannot read spill file " + path + ": " + errno_text(static_cast<int>(-h)));
  SLAB_EXPECTS(h == static_cast<std::int64_t>(sizeof header), IntegrityError,
               "spill file " + path + " is truncated (no complete header)");
  SLAB_EXPECTS(std::memcmp(header.magic, kMagic, sizeof kMagic) == 0, IntegrityError,
               "spill file " + path + " has a corrupt header (bad magic)");
  SLAB_EXPECTS(header.size == size, IntegrityError,
               "spill file " + path + " has a corrupt header: size " + std::to_string(header.size) + ", expected " +
                   std::to_string(size));
  SLAB_EXPECTS(header.checksum == expected_checksum, IntegrityError,
               "spill file " + path + " has a corrupt header: checksum differs from the one recorded at spill");
  Checksum64 hash;
  std::uint64_t done = 0;
  while (done < size) {
    const std::uint64_t n = size - done < kPiece ? size - done : kPiece;
    std::byte* piece = staging != nullptr ? staging->block : out + done;
    const std::int64_t r = pread_all(fd.get(), piece, n, sizeof header + done);
    if (r < 0) SLAB_FAIL(IoError, "cannot read spill file " + path + ": " + errno_text(static_cast<int>(-r)));
    SLAB_EXPECTS(static_cast<std::uint64_t>(r) == n, IntegrityError,
                 "spill file " + path + " is truncated: payload ends after " + std::to_string(done + r) + " of " +
                     std::to_string(size) + " bytes");
    hash.update(piece, n);
    if (staging != nullptr) staging->copy(out + done, piece, n);
    done += n;
  }
  SLAB_EXPECTS(hash.digest() == expected_checksum, IntegrityError,
               "spill file " + path + " is corrupt: the checksum of its " + std::to_string(size) +
                   " payload bytes does not match the one written");
}

}  // namespace slab::detail
