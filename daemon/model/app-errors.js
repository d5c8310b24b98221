'use strict'

const { XpmError } = require('../../lib/shared/errors')

// What an operation of a deleted app reports: queued after the delete, the app is not found;
// queued before it, the delete cancelled it (overlap-rules.js).
function notFound (name) {
  return new XpmError('XPM_ERR_APP_NOT_FOUND', `No app "${name}" (it was deleted)`, { details: { target: name } })
}

function cancelledByDelete (name, kind) {
  return new XpmError('XPM_ERR_CANCELLED', `${kind} of ${name} cancelled by delete`, { details: { app: name, operation: kind, cancelledBy: 'delete' } })
}

module.exports = { notFound, cancelledByDelete }
