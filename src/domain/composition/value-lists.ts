// The fixed value lists of the composition format, without dependencies, so that the web
// console offers exactly what the API accepts (schema.ts builds the TypeBox schemas from them).

/** Frame rates a canvas may use (frames per second); 23.976/29.97/59.94 mean 24000/1001 etc. */
export const CANVAS_FPS = [23.976, 24, 25, 29.97, 30, 50, 59.94, 60] as const;

/**
 * Transition names accepted in `clip.transition.type`: ffmpeg xfade names, except `dissolve`, a
 * true cross-dissolve (xfade `fade`), and `pixeldissolve`, ffmpeg's random-pixel `dissolve`.
 */
export const TRANSITION_TYPES = [
  "fade",
  "fadeblack",
  "fadewhite",
  "dissolve",
  "pixeldissolve",
  "wipeleft",
  "wiperight",
  "wipeup",
  "wipedown",
  "slideleft",
  "slideright",
  "slideup",
  "slidedown",
  "circleopen",
  "circleclose",
  "radial",
  "zoomin",
] as const;
