'use strict'

// The bounds on what an app spec may ask for. The CLI's config model (validate.js, normalize.js)
// and the daemon's check of specs from the socket (validate-spec.js) read the same numbers, so a
// value the CLI accepts is never refused by the daemon and a hand-written client cannot ask the
// daemon for more. docs/ecosystem.md ("Limits") explains them.

// Instances of one app, at start and after `xpm scale` (daemon/policies/scale.js).
const MAX_INSTANCES = 1024

// Apps in one start request, and apps one daemon manages.
const MAX_APPS = 1024

// The longest a timer can wait is 2^31-1 ms (about 24.8 days); Node turns a longer delay into
// 1 ms. Every duration that ends up in a timer is at most 24 days.
const MAX_TIMER_MS = 24 * 86_400_000

// An app name ends up in log file names (<name>-out.log, rotated copies get a suffix): at most
// 128 bytes of UTF-8 leaves room under the 255 bytes a file name may have.
const MAX_NAME_BYTES = 128

// A path or a single string option (interpreter, date format).
const MAX_PATH_BYTES = 4096

// `xpm logs --lines`: past lines one request may ask for.
const MAX_LOG_LINES = 100_000

const KiB = 1024
const MiB = 1024 * KiB
const GiB = 1024 * MiB

module.exports = { MAX_INSTANCES, MAX_APPS, MAX_TIMER_MS, MAX_NAME_BYTES, MAX_PATH_BYTES, MAX_LOG_LINES, KiB, MiB, GiB }
