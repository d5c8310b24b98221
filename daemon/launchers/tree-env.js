'use strict'

const { homePaths } = require('../../lib/shared/paths')
const { TREE_VAR, LAUNCH_VAR, treeTag, newLaunchTag } = require('../../lib/shared/tree-tag')

// The launches of this daemon whose process has not exited yet (handle.js removes each at its
// exit): a process that carries an instance's tree tag but none of these launch tags is a
// leftover of an earlier launch of that instance.
const liveLaunches = new Set()

// The environment of one launch: the app's, plus the instance's stable tree tag and this
// launch's own tag (lib/shared/tree-tag.js). → { env, tag: the launch tag, tree: the tree tag }.
function launchEnv (spec, appEnv, index = 0) {
  const tag = newLaunchTag()
  const tree = treeTag(homePaths().home, spec.name, index)
  liveLaunches.add(tag)
  return { env: { ...appEnv, [TREE_VAR]: tree, [LAUNCH_VAR]: tag }, tag, tree }
}

module.exports = { launchEnv, liveLaunches }
