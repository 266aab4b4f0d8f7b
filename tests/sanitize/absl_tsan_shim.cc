// ThreadSanitizer cannot see the synchronization inside Debian's Abseil:
// libabsl_synchronization.so is not built with -fsanitize=thread, so every
// field guarded by an absl::Mutex would be reported as a race. Linked into
// the binaries of a -DEB_SANITIZE=thread build only, this file interposes the
// public entry points of absl::Mutex, absl::CondVar, absl::Notification and
// absl::BlockingCounter
// (the dynamic linker resolves every caller, gRPC included, to these
// definitions), calls the real function through dlsym(RTLD_NEXT), and tells
// TSan the happens-before edge each one makes: a release before giving a
// mutex up, an acquire after taking it. Readers are treated as writers,
// which can hide a write under a reader lock, never report a false race.

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

#include "absl/synchronization/blocking_counter.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"

extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);

namespace {

template <typename Fn>
Fn Real(const char* mangled) {
  void* fn = dlsym(RTLD_NEXT, mangled);
  if (fn == nullptr) {
    std::fprintf(stderr, "absl_tsan_shim: %s not found\n", mangled);
    std::abort();
  }
  return reinterpret_cast<Fn>(fn);
}

// absl evaluates a Condition inside the uninstrumented library, after it has
// taken the mutex again but before the interposed function returns, so the
// acquire below would come too late for the reads the Condition makes. Each
// Condition is therefore wrapped in one that acquires first. (absl may also
// evaluate a waiter's Condition on the thread that unlocks, after that
// thread's release: Eval releases again.)
struct AcquiringCondition {
  absl::Mutex* mu;
  const absl::Condition* inner;
  static bool Eval(AcquiringCondition* self) {
    __tsan_acquire(self->mu);
    const bool result = self->inner->Eval();
    // The evaluating thread may be the unlocking one, whose release came
    // before this evaluation: release again, so that the waiter's acquire
    // covers what the Condition read.
    __tsan_release(self->mu);
    return result;
  }
};

}  // namespace

// The mangled names are those of Debian 12's libabsl 20220623 (inline
// namespace debian3). Each function is declared under its C++ symbol and
// defined below with the same parameters, `this` first.
#define EB_INTERPOSE(RET, NAME, SYMBOL, ...) extern "C" RET NAME(__VA_ARGS__) __asm__(SYMBOL)

EB_INTERPOSE(void, EbLock, "_ZN4absl7debian35Mutex4LockEv", absl::Mutex* mu);
EB_INTERPOSE(void, EbReaderLock, "_ZN4absl7debian35Mutex10ReaderLockEv", absl::Mutex* mu);
EB_INTERPOSE(bool, EbTryLock, "_ZN4absl7debian35Mutex7TryLockEv", absl::Mutex* mu);
EB_INTERPOSE(bool, EbReaderTryLock, "_ZN4absl7debian35Mutex13ReaderTryLockEv", absl::Mutex* mu);
EB_INTERPOSE(void, EbUnlock, "_ZN4absl7debian35Mutex6UnlockEv", absl::Mutex* mu);
EB_INTERPOSE(void, EbReaderUnlock, "_ZN4absl7debian35Mutex12ReaderUnlockEv", absl::Mutex* mu);
EB_INTERPOSE(void, EbLockWhen, "_ZN4absl7debian35Mutex8LockWhenERKNS0_9ConditionE", absl::Mutex* mu,
             const absl::Condition& c);
EB_INTERPOSE(void, EbReaderLockWhen, "_ZN4absl7debian35Mutex14ReaderLockWhenERKNS0_9ConditionE",
             absl::Mutex* mu, const absl::Condition& c);
EB_INTERPOSE(bool, EbLockWhenWithTimeout,
             "_ZN4absl7debian35Mutex19LockWhenWithTimeoutERKNS0_9ConditionENS0_8DurationE",
             absl::Mutex* mu, const absl::Condition& c, absl::Duration d);
EB_INTERPOSE(bool, EbLockWhenWithDeadline,
             "_ZN4absl7debian35Mutex20LockWhenWithDeadlineERKNS0_9ConditionENS0_4TimeE",
             absl::Mutex* mu, const absl::Condition& c, absl::Time t);
EB_INTERPOSE(bool, EbReaderLockWhenWithTimeout,
             "_ZN4absl7debian35Mutex25ReaderLockWhenWithTimeoutERKNS0_9ConditionENS0_8DurationE",
             absl::Mutex* mu, const absl::Condition& c, absl::Duration d);
EB_INTERPOSE(bool, EbReaderLockWhenWithDeadline,
             "_ZN4absl7debian35Mutex26ReaderLockWhenWithDeadlineERKNS0_9ConditionENS0_4TimeE",
             absl::Mutex* mu, const absl::Condition& c, absl::Time t);
EB_INTERPOSE(void, EbAwait, "_ZN4absl7debian35Mutex5AwaitERKNS0_9ConditionE", absl::Mutex* mu,
             const absl::Condition& c);
EB_INTERPOSE(bool, EbAwaitWithTimeout,
             "_ZN4absl7debian35Mutex16AwaitWithTimeoutERKNS0_9ConditionENS0_8DurationE",
             absl::Mutex* mu, const absl::Condition& c, absl::Duration d);
EB_INTERPOSE(bool, EbAwaitWithDeadline,
             "_ZN4absl7debian35Mutex17AwaitWithDeadlineERKNS0_9ConditionENS0_4TimeE",
             absl::Mutex* mu, const absl::Condition& c, absl::Time t);
EB_INTERPOSE(void, EbCondVarWait, "_ZN4absl7debian37CondVar4WaitEPNS0_5MutexE", absl::CondVar* cv,
             absl::Mutex* mu);
EB_INTERPOSE(bool, EbCondVarWaitWithTimeout,
             "_ZN4absl7debian37CondVar15WaitWithTimeoutEPNS0_5MutexENS0_8DurationE",
             absl::CondVar* cv, absl::Mutex* mu, absl::Duration d);
EB_INTERPOSE(bool, EbCondVarWaitWithDeadline,
             "_ZN4absl7debian37CondVar16WaitWithDeadlineEPNS0_5MutexENS0_4TimeE", absl::CondVar* cv,
             absl::Mutex* mu, absl::Time t);
EB_INTERPOSE(void, EbNotify, "_ZN4absl7debian312Notification6NotifyEv", absl::Notification* n);
EB_INTERPOSE(void, EbWaitForNotification, "_ZNK4absl7debian312Notification19WaitForNotificationEv",
             const absl::Notification* n);
EB_INTERPOSE(bool, EbWaitForNotificationWithTimeout,
             "_ZNK4absl7debian312Notification30WaitForNotificationWithTimeoutENS0_8DurationE",
             const absl::Notification* n, absl::Duration d);
// BlockingCounter's own Mutex is locked inside the library, whose calls to
// it do not come through the interposed Lock/Unlock above: without these,
// what a thread wrote before DecrementCount was a race for the thread whose
// Wait returned (CI's TSan run, TlsTest.P2_4f2_..., 2026-12-07).
EB_INTERPOSE(bool, EbDecrementCount, "_ZN4absl7debian315BlockingCounter14DecrementCountEv",
             absl::BlockingCounter* counter);
EB_INTERPOSE(void, EbBlockingCounterWait, "_ZN4absl7debian315BlockingCounter4WaitEv",
             absl::BlockingCounter* counter);
EB_INTERPOSE(bool, EbWaitForNotificationWithDeadline,
             "_ZNK4absl7debian312Notification31WaitForNotificationWithDeadlineENS0_4TimeE",
             const absl::Notification* n, absl::Time t);

void EbLock(absl::Mutex* mu) {
  static const auto real = Real<decltype(&EbLock)>("_ZN4absl7debian35Mutex4LockEv");
  real(mu);
  __tsan_acquire(mu);
}

void EbReaderLock(absl::Mutex* mu) {
  static const auto real = Real<decltype(&EbReaderLock)>("_ZN4absl7debian35Mutex10ReaderLockEv");
  real(mu);
  __tsan_acquire(mu);
}

bool EbTryLock(absl::Mutex* mu) {
  static const auto real = Real<decltype(&EbTryLock)>("_ZN4absl7debian35Mutex7TryLockEv");
  const bool result = real(mu);
  if (result) __tsan_acquire(mu);
  return result;
}

bool EbReaderTryLock(absl::Mutex* mu) {
  static const auto real =
      Real<decltype(&EbReaderTryLock)>("_ZN4absl7debian35Mutex13ReaderTryLockEv");
  const bool result = real(mu);
  if (result) __tsan_acquire(mu);
  return result;
}

void EbUnlock(absl::Mutex* mu) {
  static const auto real = Real<decltype(&EbUnlock)>("_ZN4absl7debian35Mutex6UnlockEv");
  __tsan_release(mu);
  real(mu);
}

void EbReaderUnlock(absl::Mutex* mu) {
  static const auto real =
      Real<decltype(&EbReaderUnlock)>("_ZN4absl7debian35Mutex12ReaderUnlockEv");
  __tsan_release(mu);
  real(mu);
}

void EbLockWhen(absl::Mutex* mu, const absl::Condition& c) {
  static const auto real =
      Real<decltype(&EbLockWhen)>("_ZN4absl7debian35Mutex8LockWhenERKNS0_9ConditionE");
  AcquiringCondition wrapper{mu, &c};
  const absl::Condition acquiring(&AcquiringCondition::Eval, &wrapper);
  real(mu, acquiring);
  __tsan_acquire(mu);
}

void EbReaderLockWhen(absl::Mutex* mu, const absl::Condition& c) {
  static const auto real =
      Real<decltype(&EbReaderLockWhen)>("_ZN4absl7debian35Mutex14ReaderLockWhenERKNS0_9ConditionE");
  AcquiringCondition wrapper{mu, &c};
  const absl::Condition acquiring(&AcquiringCondition::Eval, &wrapper);
  real(mu, acquiring);
  __tsan_acquire(mu);
}

bool EbLockWhenWithTimeout(absl::Mutex* mu, const absl::Condition& c, absl::Duration d) {
  static const auto real = Real<decltype(&EbLockWhenWithTimeout)>(
      "_ZN4absl7debian35Mutex19LockWhenWithTimeoutERKNS0_9ConditionENS0_8DurationE");
  AcquiringCondition wrapper{mu, &c};
  const absl::Condition acquiring(&AcquiringCondition::Eval, &wrapper);
  const bool result = real(mu, acquiring, d);
  __tsan_acquire(mu);
  return result;
}

bool EbLockWhenWithDeadline(absl::Mutex* mu, const absl::Condition& c, absl::Time t) {
  static const auto real = Real<decltype(&EbLockWhenWithDeadline)>(
      "_ZN4absl7debian35Mutex20LockWhenWithDeadlineERKNS0_9ConditionENS0_4TimeE");
  AcquiringCondition wrapper{mu, &c};
  const absl::Condition acquiring(&AcquiringCondition::Eval, &wrapper);
  const bool result = real(mu, acquiring, t);
  __tsan_acquire(mu);
  return result;
}

bool EbReaderLockWhenWithTimeout(absl::Mutex* mu, const absl::Condition& c, absl::Duration d) {
  static const auto real = Real<decltype(&EbReaderLockWhenWithTimeout)>(
      "_ZN4absl7debian35Mutex25ReaderLockWhenWithTimeoutERKNS0_9ConditionENS0_8DurationE");
  AcquiringCondition wrapper{mu, &c};
  const absl::Condition acquiring(&AcquiringCondition::Eval, &wrapper);
  const bool result = real(mu, acquiring, d);
  __tsan_acquire(mu);
  return result;
}

bool EbReaderLockWhenWithDeadline(absl::Mutex* mu, const absl::Condition& c, absl::Time t) {
  static const auto real = Real<decltype(&EbReaderLockWhenWithDeadline)>(
      "_ZN4absl7debian35Mutex26ReaderLockWhenWithDeadlineERKNS0_9ConditionENS0_4TimeE");
  AcquiringCondition wrapper{mu, &c};
  const absl::Condition acquiring(&AcquiringCondition::Eval, &wrapper);
  const bool result = real(mu, acquiring, t);
  __tsan_acquire(mu);
  return result;
}

void EbAwait(absl::Mutex* mu, const absl::Condition& c) {
  static const auto real =
      Real<decltype(&EbAwait)>("_ZN4absl7debian35Mutex5AwaitERKNS0_9ConditionE");
  AcquiringCondition wrapper{mu, &c};
  const absl::Condition acquiring(&AcquiringCondition::Eval, &wrapper);
  __tsan_release(mu);
  real(mu, acquiring);
  __tsan_acquire(mu);
}

bool EbAwaitWithTimeout(absl::Mutex* mu, const absl::Condition& c, absl::Duration d) {
  static const auto real = Real<decltype(&EbAwaitWithTimeout)>(
      "_ZN4absl7debian35Mutex16AwaitWithTimeoutERKNS0_9ConditionENS0_8DurationE");
  AcquiringCondition wrapper{mu, &c};
  const absl::Condition acquiring(&AcquiringCondition::Eval, &wrapper);
  __tsan_release(mu);
  const bool result = real(mu, acquiring, d);
  __tsan_acquire(mu);
  return result;
}

bool EbAwaitWithDeadline(absl::Mutex* mu, const absl::Condition& c, absl::Time t) {
  static const auto real = Real<decltype(&EbAwaitWithDeadline)>(
      "_ZN4absl7debian35Mutex17AwaitWithDeadlineERKNS0_9ConditionENS0_4TimeE");
  AcquiringCondition wrapper{mu, &c};
  const absl::Condition acquiring(&AcquiringCondition::Eval, &wrapper);
  __tsan_release(mu);
  const bool result = real(mu, acquiring, t);
  __tsan_acquire(mu);
  return result;
}

void EbCondVarWait(absl::CondVar* cv, absl::Mutex* mu) {
  static const auto real =
      Real<decltype(&EbCondVarWait)>("_ZN4absl7debian37CondVar4WaitEPNS0_5MutexE");
  __tsan_release(mu);
  real(cv, mu);
  __tsan_acquire(mu);
}

bool EbCondVarWaitWithTimeout(absl::CondVar* cv, absl::Mutex* mu, absl::Duration d) {
  static const auto real = Real<decltype(&EbCondVarWaitWithTimeout)>(
      "_ZN4absl7debian37CondVar15WaitWithTimeoutEPNS0_5MutexENS0_8DurationE");
  __tsan_release(mu);
  const bool result = real(cv, mu, d);
  __tsan_acquire(mu);
  return result;
}

bool EbCondVarWaitWithDeadline(absl::CondVar* cv, absl::Mutex* mu, absl::Time t) {
  static const auto real = Real<decltype(&EbCondVarWaitWithDeadline)>(
      "_ZN4absl7debian37CondVar16WaitWithDeadlineEPNS0_5MutexENS0_4TimeE");
  __tsan_release(mu);
  const bool result = real(cv, mu, t);
  __tsan_acquire(mu);
  return result;
}

// HasBeenNotified() is inline: compiled into our instrumented code, it is an
// acquire load of the notified_yet_ flag, which TSan matches with a release
// on the flag's own address. Notification is {Mutex mutex_; atomic<bool>
// notified_yet_;} in this Abseil; the assertion catches another layout.
static_assert(sizeof(absl::Notification) == 2 * sizeof(absl::Mutex),
              "absl::Notification's layout changed: update FlagOf");
void* FlagOf(absl::Notification* n) { return reinterpret_cast<char*>(n) + sizeof(absl::Mutex); }

void EbNotify(absl::Notification* n) {
  static const auto real = Real<decltype(&EbNotify)>("_ZN4absl7debian312Notification6NotifyEv");
  __tsan_release(n);
  __tsan_release(FlagOf(n));
  real(n);
}

bool EbDecrementCount(absl::BlockingCounter* counter) {
  static const auto real =
      Real<decltype(&EbDecrementCount)>("_ZN4absl7debian315BlockingCounter14DecrementCountEv");
  __tsan_release(counter);
  return real(counter);
}

void EbBlockingCounterWait(absl::BlockingCounter* counter) {
  static const auto real =
      Real<decltype(&EbBlockingCounterWait)>("_ZN4absl7debian315BlockingCounter4WaitEv");
  real(counter);
  __tsan_acquire(counter);
}

void EbWaitForNotification(const absl::Notification* n) {
  static const auto real = Real<decltype(&EbWaitForNotification)>(
      "_ZNK4absl7debian312Notification19WaitForNotificationEv");
  real(n);
  __tsan_acquire(const_cast<absl::Notification*>(n));
}

bool EbWaitForNotificationWithTimeout(const absl::Notification* n, absl::Duration d) {
  static const auto real = Real<decltype(&EbWaitForNotificationWithTimeout)>(
      "_ZNK4absl7debian312Notification30WaitForNotificationWithTimeoutENS0_8DurationE");
  const bool result = real(n, d);
  if (result) __tsan_acquire(const_cast<absl::Notification*>(n));
  return result;
}

bool EbWaitForNotificationWithDeadline(const absl::Notification* n, absl::Time t) {
  static const auto real = Real<decltype(&EbWaitForNotificationWithDeadline)>(
      "_ZNK4absl7debian312Notification31WaitForNotificationWithDeadlineENS0_4TimeE");
  const bool result = real(n, t);
  if (result) __tsan_acquire(const_cast<absl::Notification*>(n));
  return result;
}
