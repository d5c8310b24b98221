'use strict'

const { homePaths } = require('../../lib/paths')
const { TREE_VAR, LAUNCH_VAR, treeTag, newLaunchTag } = require('../../lib/tree-tag')

// The environment of one launch: the app's, plus the instance's stable tree tag and this
// launch's own tag (lib/tree-tag.js). → { env, tag: the launch tag }.
function launchEnv (spec, appEnv, index = 0) {
  const tag = newLaunchTag()
  const env = { ...appEnv, [TREE_VAR]: treeTag(homePaths().home, spec.name, index), [LAUNCH_VAR]: tag }
  return { env, tag }
}

module.exports = { launchEnv }
