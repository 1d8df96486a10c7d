// The kit's routes on an Express router, and a guard for pages that need a signed-in person.
//   app.use(platformKitRouter(kit));
//   app.get('/dashboard', requireSession(kit), (req, res) => res.send(res.locals.session.user.sub));
import { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { PlatformKit } from './kit.ts';
import type { SecurityEventReceiver } from './events.ts';

const handle = (handler: (req: Request, res: Response) => Promise<void>): RequestHandler => (req, res, next) => {
  // Express 4 does not catch a rejected promise itself.
  handler(req, res).catch(next);
};

export function platformKitRouter(kit: PlatformKit): Router {
  const router = Router();
  router.get(kit.paths.signIn, handle(kit.signIn));
  router.get(kit.paths.callback, handle(kit.callback));
  // Every method: the handlers answer 405 with Allow themselves to anything but POST.
  router.all(kit.paths.backchannelLogout, handle(kit.backchannelLogout));
  router.all(kit.paths.signOut, handle(kit.signOut));
  return router;
}

/** The session in res.locals.session; without one, the browser signs in and comes back to this page. */
export function requireSession(kit: PlatformKit): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    kit.session(req).then((session) => {
      if (session) {
        res.locals.session = session;
        return next();
      }
      res.redirect(303, kit.signInHref(req.originalUrl));
    }, next);
  };
}

/**
 * The Security Event Token push receiver (RFC 8935) on Express:
 *   app.all('/security-events', securityEventHandler(receiver));
 * Every method: it answers 405 with Allow to anything but POST. It reads the body itself (or
 * takes what express.text({ type: 'application/secevent+jwt' }) read).
 */
export function securityEventHandler(receiver: SecurityEventReceiver): RequestHandler {
  return handle(receiver.push);
}
