'use strict'

// The tree tag: every process an instance starts carries, in its environment,
//   XPM_TREE=<home id>/<app>/<instance>   the same for every launch of that slot, so xpm finds
//                                          what a process left behind after it exited, after a
//                                          restart and after a daemon crash;
//   XPM_LAUNCH=<daemon pid>-<random>      one launch of it, so a restart's new process is never
//                                          mistaken for the leftovers of the old one.
// The home id is a hash of the real path of XPM_HOME: two homes never share it, and it holds no
// slash. App names hold no slash either (lib/shared/config/types.js), so the three parts split cleanly.
//   XPM_UNTRACKED=1                       only in an app with `treekill: false`: what it starts is
//                                          its own, so no sweep by home or tree ends it, even
//                                          once the app is deleted; only the app's own recorded
//                                          process is ended (by pid).
// Children inherit them (unless they clear their environment: then they escape the tag).
// Pure values only; lib/shared/tag-scan.js reads /proc.

const crypto = require('node:crypto')
const fs = require('node:fs')
const path = require('node:path')

const TREE_VAR = 'XPM_TREE'
const LAUNCH_VAR = 'XPM_LAUNCH'
const UNTRACKED_VAR = 'XPM_UNTRACKED'

const homeIds = new Map()

// A home's id. The real path is read once per home and process and then remembered (the
// daemon's first launch pays one realpath; nothing after that).
function homeId (home) {
  let id = homeIds.get(home)
  if (!id) {
    let real = path.resolve(home)
    try { real = fs.realpathSync.native(real) } catch {}
    id = crypto.createHash('sha256').update(real).digest('hex').slice(0, 16)
    homeIds.set(home, id)
  }
  return id
}

function treeTag (home, app, instance) {
  return `${homeId(home)}/${app}/${instance}`
}

// <pid>-<random per process><counter>: unique within this daemon by the counter, and apart from an
// earlier daemon that had the same pid by the random part (drawn once: a draw per launch cost
// more than the rest of the tag's work at a start of many processes).
let launchPrefix = null
let launches = 0
function newLaunchTag (pid = process.pid) {
  launchPrefix ??= crypto.randomBytes(6).toString('hex')
  launches += 1
  return `${pid}-${launchPrefix}${launches.toString(36)}`
}

// The daemon pid a launch tag was made by (0 for a tag of another form).
function launchOwner (launch) {
  const m = /^(\d+)-/.exec(launch || '')
  return m ? Number(m[1]) : 0
}

// "<home id>/<app>/<instance>" → { home, app, instance }, or null.
function parseTreeTag (tag) {
  if (typeof tag !== 'string') return null
  const first = tag.indexOf('/')
  const last = tag.lastIndexOf('/')
  if (first <= 0 || last === first) return null
  const instance = tag.slice(last + 1)
  if (!/^\d+$/.test(instance)) return null
  return { home: tag.slice(0, first), app: tag.slice(first + 1, last), instance: Number(instance) }
}

// The tag variables of a /proc/<pid>/environ text (NUL-separated KEY=value entries):
// { tree, launch, untracked }, the first two null when absent.
function tagsOfEnviron (text) {
  const out = { tree: null, launch: null, untracked: false }
  if (!text) return out
  for (const entry of String(text).split('\0')) {
    if (entry.startsWith(TREE_VAR + '=')) out.tree = entry.slice(TREE_VAR.length + 1)
    else if (entry.startsWith(LAUNCH_VAR + '=')) out.launch = entry.slice(LAUNCH_VAR.length + 1)
    else if (entry === UNTRACKED_VAR + '=1') out.untracked = true
  }
  return out
}

// Whether a process's tags match a query { homeId, app?, instance? } or { tree } (a whole tree
// tag) or { launch }, or several of these at once.
function matches (tags, { homeId: id, app, instance, launch, tree } = {}) {
  if (launch !== undefined && tags.launch !== launch) return false
  if (tree !== undefined && tags.tree !== tree) return false
  if (id === undefined) return launch !== undefined || tree !== undefined
  const parsed = parseTreeTag(tags.tree)
  if (!parsed || parsed.home !== id) return false
  if (app !== undefined && parsed.app !== app) return false
  if (instance !== undefined && parsed.instance !== Number(instance)) return false
  return true
}

module.exports = { TREE_VAR, LAUNCH_VAR, UNTRACKED_VAR, homeId, treeTag, newLaunchTag, launchOwner, parseTreeTag, tagsOfEnviron, matches }
