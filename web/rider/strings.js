/**
 * Every word the rider app shows, in one place. A translation (Twi, Ga, Ewe) is a copy of this
 * object with the same keys; `{name}` marks a value filled in when shown.
 */
export const STRINGS = {
  appName: 'Rider',
  loading: 'Loading…',

  // Sign-in
  signInTitle: 'Sign in',
  signInHelp: 'Open the sign-in link your operator sent you, or scan its QR code with this phone’s camera.',
  signInWorking: 'Signing you in…',
  signInOneTime: 'A sign-in link works once. If it does not work, ask your operator for a new one.',
  signedOut: 'You signed out.',
  reasonRevoked: 'You were signed out: your sign-in was stopped by an operator, or this account was signed in on another phone. Ask your operator for a new sign-in link.',
  reasonExpired: 'Your sign-in has expired. Ask your operator for a new sign-in link.',
  reasonUsed: 'This sign-in link was already used. Ask your operator for a new one.',
  reasonLinkExpired: 'This sign-in link has expired. Ask your operator for a new one.',
  reasonUnknown: 'This sign-in link is not valid. Check that you opened the whole link, or ask your operator for a new one.',
  signOut: 'Sign out',
  signOutConfirm: 'Sign out of this phone? You will need a new link from your operator to sign in again.',

  // Network
  offlinePill: 'Offline',
  offlineBanner: 'This phone is offline. Your last position will be sent when the network returns.',
  backOnline: 'Back online.',

  // Going online
  youAreOffline: 'You are offline',
  youAreOnline: 'You are online',
  offlineHelp: 'Go online to receive delivery offers near you.',
  setOfflineSilent: 'You were set offline: no position came from this phone for a while. Go online again when you are ready.',
  setOfflineSignedOut: 'You were set offline: this phone is signed out.',
  onlineHelp: 'Waiting for offers near you. Keep this app open.',
  goOnline: 'Go online',
  goOffline: 'Go offline',
  locating: 'Finding your position…',
  positionSent: 'Position sent {time}.',
  positionWaiting: 'Position kept; it will be sent when the network returns.',
  locationDenied: 'Location is blocked, so you cannot receive offers. To allow it: open your browser’s menu (⋮), then Settings › Site settings › Location, choose this site and select Allow. Then press “Go online” again.',
  locationUnavailable: 'Your phone cannot find its position. Turn on Location (GPS) in the phone’s quick settings, and go outside if you can.',
  locationInsecure: 'This phone will not share its position with this address (it is not https). Ask your operator for the right link.',
  locationUnsupported: 'This browser cannot share your position. Open this app in Chrome.',

  // Offers
  offersTitle: 'Offers',
  noOffers: 'No offers yet.',
  offerPickup: 'Pick up',
  offerDropoff: 'Drop-off {n}',
  offerFinalDropoff: 'Final drop-off',
  offerDistance: '{km} km trip',
  offerSize: 'Package: {size}',
  offerNote: 'Note: {note}',
  offerExpires: 'Offer ends at {time}',
  accept: 'Accept',
  accepting: 'Accepting…',
  takenByAnother: 'Taken by another rider. Wait for the next offer.',
  offerGone: 'This offer has ended.',
  finishCurrentJob: 'Finish your current job first.',
  sizes: { small: 'small', medium: 'medium', large: 'large' },

  // Job
  jobTitle: 'Job {reference}',
  statusAccepted: 'Go to the pickup',
  statusPickedUp: 'You have the parcel',
  statusInTransit: 'On the way',
  nextPlace: 'Next: {place}',
  pickupAt: 'Pick up at',
  deliverTo: 'Deliver to {name}',
  stopTo: 'Stop {n}: deliver to {name}',
  navigate: 'Navigate',
  callRecipient: 'Call {name}',
  callHelp: 'The number is a masked line: it connects you to the recipient while this job is active.',
  pickedUp: 'Picked up',
  onMyWay: 'On my way',
  stopDone: 'Stop done',
  delivered: 'Delivered',
  working: 'Sending…',
  handoverOtp: 'Ask {name} for the 6-digit code in their text message, and type it here.',
  otpDisplay: 'Code',
  otpDelete: 'Delete',
  otpClear: 'Clear',
  confirmCode: 'Confirm code',
  handoverPhoto: 'Take a photo of the parcel handed over to {name}.',
  takePhoto: 'Take photo',
  retakePhoto: 'Take again',
  sendPhoto: 'Send photo',
  photoPreview: 'Photo of the hand-over',
  stopsDone: '{done} of {total} stops done',
  jobDone: 'Delivered. Well done!',
  jobDoneHelp: 'New offers will show here while you are online.',
  backToOffers: 'Back to offers',
  jobEnded: 'This job has ended (it was cancelled by the sender).',

  // Refusals from the API, in a rider's words
  errorWrongCode: 'That code is not right. Ask the recipient to read the code in their text message again.',
  errorCodeLocked: 'Too many wrong codes. Wait 5 minutes, then try again.',
  errorCodeMissing: 'Type the 6-digit code first.',
  errorPhotoMissing: 'Take a photo first.',
  errorPhotoBad: 'This photo could not be used. Take it again.',
  errorPhotoTooBig: 'This photo is too big. Take it again.',
  errorOutOfOrder: 'This step was already done, or is not next. The screen is now up to date.',
  errorStopsInOrder: 'Deliver the stops in order: stop {n} is next.',
  errorStopsFirst: 'Deliver every stop before the final drop-off.',
  errorNotYours: 'This job is not yours any more.',
  errorRateLimited: 'Too many tries at once. Wait a minute, then try again.',
  errorNetwork: 'No network. Try again when you have signal.',
  errorBusy: 'The service is busy. Try again in a moment.',
  errorOther: 'Something went wrong. Try again.',
};

/** The text for `key`, with `{name}` places filled from `values`. */
export function t(key, values = {}) {
  const text = STRINGS[key];
  if (typeof text !== 'string') return key;
  return text.replace(/\{(\w+)\}/g, (_, name) => (name in values ? String(values[name]) : `{${name}}`));
}
