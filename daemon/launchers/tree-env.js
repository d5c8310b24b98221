'use strict'

const { homePaths } = require('../../lib/shared/paths')
const { TREE_VAR, LAUNCH_VAR, UNTRACKED_VAR, treeTag, newLaunchTag } = require('../../lib/shared/tree-tag')

// The environment of one launch: the app's, plus the instance's stable tree tag and this
// launch's own tag (lib/shared/tree-tag.js), and the mark of a `treekill: false` tree, which
// travels with what the app starts. `launches` (the launchers' shared state, launchers/index.js)
// holds the launches of this daemon whose process has not exited yet (handle.js removes each at
// its exit): a process that carries an instance's tree tag but none of these launch tags is a
// leftover of an earlier launch of that instance. A `treekill: false` launch is not tracked
// (nothing sweeps its tree): its tag is null.
// → { env, tag: the launch tag or null, tree: the tree tag }.
function launchEnv (spec, appEnv, index, shared) {
  const tag = newLaunchTag()
  const tree = treeTag(shared.home(), spec.name, index)
  const env = { ...appEnv, [TREE_VAR]: tree, [LAUNCH_VAR]: tag }
  if (spec.treekill === false) env[UNTRACKED_VAR] = '1'
  else delete env[UNTRACKED_VAR]
  if (spec.treekill === false) return { env, tag: null, tree }
  shared.launches.add(tag)
  return { env, tag, tree }
}

// XPM_HOME resolved once, not at every launch (again if the variable changes: tests in one process).
function daemonHome () {
  let home = { key: null, path: null }
  return () => {
    const key = `${process.env.XPM_HOME}\0${process.env.PM2_HOME}`
    if (home.key !== key) home = { key, path: homePaths().home }
    return home.path
  }
}

module.exports = { launchEnv, daemonHome }
